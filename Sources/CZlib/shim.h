#ifndef PASTEBOARD_CZLIB_SHIM_H
#define PASTEBOARD_CZLIB_SHIM_H

// zlib: the picker's own PNG decoding (half-block previews without chafa), and the history's reading of
// LibreOffice's zip packages for identity (ZipArchive).
#include <zlib.h>

#endif
