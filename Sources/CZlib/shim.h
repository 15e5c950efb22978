#ifndef PASTEBOARD_CZLIB_SHIM_H
#define PASTEBOARD_CZLIB_SHIM_H

// zlib, for the picker's own PNG decoding (half-block previews without chafa).
#include <zlib.h>

#endif
