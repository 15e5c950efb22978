#ifndef PASTEBOARD_CSODIUM_SHIM_H
#define PASTEBOARD_CSODIUM_SHIM_H
#include <sodium.h>
#endif
