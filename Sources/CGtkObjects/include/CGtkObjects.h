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

// Drag and drop (dnd.c): a drag source whose content a callback builds when a drag starts, a content provider
// offering several MIME types at once, and a drop target for files, images and text that hands plain C values on.

/// The content of a drag about to start (full reference), or NULL to start none.
typedef GdkContentProvider *(*PbDragPrepare)(gpointer data);
/// Adds a drag source (copy) to `widget`; `release` is called on `data` when the widget goes.
void pb_drag_source_attach(GtkWidget *widget, PbDragPrepare prepare, gpointer data, GDestroyNotify release);
/// A provider offering each of `count` representations: `mimes[i]` with `lengths[i]` bytes at `datas[i]` (copied).
GdkContentProvider *pb_content_provider_new(const char *const *mimes, const guint8 *const *datas, const gsize *lengths,
                                            guint count);

/// What was dropped: `PB_DROP_TEXT` (UTF-8 `text`), `PB_DROP_FILES` (`text`: one path or URI a line) or
/// `PB_DROP_IMAGE` (PNG `bytes`). Returns whether it was taken.
typedef enum { PB_DROP_TEXT = 0, PB_DROP_FILES = 1, PB_DROP_IMAGE = 2 } PbDropKind;
typedef gboolean (*PbDropHandler)(PbDropKind kind, const char *text, const guint8 *bytes, gsize length,
                                  gpointer data);
/// Adds a drop target for files, images and text from other applications (drags of this app's own are refused).
void pb_drop_target_attach(GtkWidget *widget, PbDropHandler handler, gpointer data, GDestroyNotify release);

// List rows (rows.c): a click activates a row and the keyboard focus selects it, without GTK 4.8's
// single-click-activate mode, which also selects the row under the pointer.

/// Whether a click (press and release, no drag) on a row of `list` activates it.
void pb_list_set_activates_on_click(GtkWidget *list, gboolean activates);
gboolean pb_list_get_activates_on_click(GtkWidget *list);
/// A click with Ctrl (`toggle`) or Shift (`extend`) held on a row of `list`: `handler` gets it instead of the row
/// being activated. `release` frees `context` with the list.
typedef void (*PbListModifiedClick)(gpointer context, guint position, gboolean extend, gboolean toggle);
void pb_list_set_modified_click(GtkWidget *list, PbListModifiedClick handler, gpointer context, GDestroyNotify release);
/// Gives the row widget of `item` (its child, set) a click that activates it, and its slot (once bound) a focus
/// controller that selects the row when it takes the keyboard focus. Call at setup and at each bind.
void pb_list_item_prepare(GtkListItem *item);

/// Names a row for screen readers: the row widget and the list's slot holding it (the "list item" a screen reader
/// reads), now or once the slot exists (pb_list_item_prepare).
void pb_row_set_accessible_label(GtkWidget *row, const char *label);

/// Names every descendant of `widget` of type `type` that GTK would otherwise name after its class (the toggle
/// button inside a GtkDropDown, the scroll bars of a GtkScrolledWindow).
void pb_accessible_label_descendants(GtkWidget *widget, GType type, const char *label);
/// The position of the row whose slot has the keyboard focus in `list`, else GTK_INVALID_LIST_POSITION.
guint pb_list_focused_position(GtkWidget *list);
/// While held, a row taking the focus is not selected (GTK moving the focus as rows are replaced).
void pb_list_hold_focus_select(GtkWidget *list, gboolean held);

G_END_DECLS

#endif
