#ifndef PASTEBOARD_CSODIUM_SHIM_H
#define PASTEBOARD_CSODIUM_SHIM_H
#include <sodium.h>

/* syncfs(2) is declared by <unistd.h> only with _GNU_SOURCE, which the Glibc module is not built with. Sync flushes
   a batch of payload files with one call before writing the segment that names them. */
extern int syncfs(int fd);
#endif
