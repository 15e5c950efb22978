#ifndef PASTEBOARD_CGTKOBJECTS_H
#define PASTEBOARD_CGTKOBJECTS_H

#include <gtk/gtk.h>

// Two GObject types Swift cannot declare without the G_DEFINE_TYPE macros: a row object carrying a pointer to
// a Swift value, and a GListModel whose length and items come from callbacks, so a list view can show a million
// rows while only the visible ones exist.

G_BEGIN_DECLS

#define PB_TYPE_ROW (pb_row_get_type())
G_DECLARE_FINAL_TYPE(PbRow, pb_row, PB, ROW, GObject)

/// A row holding `payload`; `release` is called on it when the row is finalized.
PbRow *pb_row_new(gpointer payload, GDestroyNotify release);
/// The payload given to pb_row_new.
gpointer pb_row_get_payload(PbRow *row);

#define PB_TYPE_LIST_MODEL (pb_list_model_get_type())
G_DECLARE_FINAL_TYPE(PbListModel, pb_list_model, PB, LIST_MODEL, GObject)

/// The number of rows, asked of `context`.
typedef guint (*PbListModelCount)(gpointer context);
/// A new row (full reference) for `position`, or NULL when there is none.
typedef PbRow *(*PbListModelItem)(gpointer context, guint position);

/// A list model of PbRow items; `release` is called on `context` when the model is finalized.
PbListModel *pb_list_model_new(PbListModelCount count, PbListModelItem item, gpointer context, GDestroyNotify release);

/// Decodes an image held in memory, scaled down (never up) to fit in max_width × max_height, keeping its aspect
/// ratio (a GdkPixbufLoader whose size-prepared handler sets the size, so large images are decoded small).
/// max_width or max_height of 0 or less: full size. NULL with `error` set when the bytes are no image it knows.
GdkPixbuf *pb_pixbuf_load_fitting(const guchar *bytes, gsize length, int max_width, int max_height, GError **error);

G_END_DECLS

#endif
