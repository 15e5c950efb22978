#ifndef PASTEBOARD_CZSTD_SHIM_H
#define PASTEBOARD_CZSTD_SHIM_H

// Zstandard (libzstd-dev): the history packs the texts it keeps inside its database with a dictionary of its own
// (PasteboardHistory's PayloadPacking). ZSTD_STATIC_LINKING_ONLY names the frame format without the four-byte magic
// number; the functions called are the library's stable ones.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zdict.h>

static inline size_t pb_zstd_cctx_compact_frames(ZSTD_CCtx *context) {
    size_t result = ZSTD_CCtx_setParameter(context, ZSTD_c_format, ZSTD_f_zstd1_magicless);
    if (ZSTD_isError(result)) return result;
    result = ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 0);
    if (ZSTD_isError(result)) return result;
    result = ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 0);
    if (ZSTD_isError(result)) return result;
    return ZSTD_CCtx_setParameter(context, ZSTD_c_dictIDFlag, 0);
}

static inline size_t pb_zstd_dctx_compact_frames(ZSTD_DCtx *context) {
    return ZSTD_DCtx_setParameter(context, ZSTD_d_format, ZSTD_f_zstd1_magicless);
}

#endif
