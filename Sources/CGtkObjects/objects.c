#include "CGtkObjects.h"

// MARK: - PbRow

struct _PbRow {
    GObject parent_instance;
    gpointer payload;
    GDestroyNotify release;
};

G_DEFINE_TYPE(PbRow, pb_row, G_TYPE_OBJECT)

static void pb_row_finalize(GObject *object) {
    PbRow *row = PB_ROW(object);
    if (row->release != NULL && row->payload != NULL) row->release(row->payload);
    row->payload = NULL;
    G_OBJECT_CLASS(pb_row_parent_class)->finalize(object);
}

static void pb_row_class_init(PbRowClass *klass) { G_OBJECT_CLASS(klass)->finalize = pb_row_finalize; }

static void pb_row_init(PbRow *row) {
    row->payload = NULL;
    row->release = NULL;
}

PbRow *pb_row_new(gpointer payload, GDestroyNotify release) {
    PbRow *row = g_object_new(PB_TYPE_ROW, NULL);
    row->payload = payload;
    row->release = release;
    return row;
}

gpointer pb_row_get_payload(PbRow *row) { return row->payload; }

// MARK: - PbListModel

struct _PbListModel {
    GObject parent_instance;
    PbListModelCount count;
    PbListModelItem item;
    gpointer context;
    GDestroyNotify release;
};

static void pb_list_model_interface_init(GListModelInterface *iface);

G_DEFINE_TYPE_WITH_CODE(PbListModel, pb_list_model, G_TYPE_OBJECT,
                        G_IMPLEMENT_INTERFACE(G_TYPE_LIST_MODEL, pb_list_model_interface_init))

static GType pb_list_model_get_item_type(GListModel *list) { return PB_TYPE_ROW; }

static guint pb_list_model_get_n_items(GListModel *list) {
    PbListModel *model = PB_LIST_MODEL(list);
    return model->count != NULL ? model->count(model->context) : 0;
}

static gpointer pb_list_model_get_item(GListModel *list, guint position) {
    PbListModel *model = PB_LIST_MODEL(list);
    return model->item != NULL ? model->item(model->context, position) : NULL;
}

static void pb_list_model_interface_init(GListModelInterface *iface) {
    iface->get_item_type = pb_list_model_get_item_type;
    iface->get_n_items = pb_list_model_get_n_items;
    iface->get_item = pb_list_model_get_item;
}

static void pb_list_model_finalize(GObject *object) {
    PbListModel *model = PB_LIST_MODEL(object);
    if (model->release != NULL && model->context != NULL) model->release(model->context);
    model->context = NULL;
    G_OBJECT_CLASS(pb_list_model_parent_class)->finalize(object);
}

static void pb_list_model_class_init(PbListModelClass *klass) {
    G_OBJECT_CLASS(klass)->finalize = pb_list_model_finalize;
}

static void pb_list_model_init(PbListModel *model) {}

PbListModel *pb_list_model_new(PbListModelCount count, PbListModelItem item, gpointer context, GDestroyNotify release) {
    PbListModel *model = g_object_new(PB_TYPE_LIST_MODEL, NULL);
    model->count = count;
    model->item = item;
    model->context = context;
    model->release = release;
    return model;
}

// MARK: - Decoding images at a size

typedef struct {
    int max_width;
    int max_height;
} PbFitting;

static void pb_pixbuf_size_prepared(GdkPixbufLoader *loader, int width, int height, gpointer data) {
    PbFitting *fitting = data;
    if (fitting->max_width <= 0 || fitting->max_height <= 0 || width <= 0 || height <= 0) return;
    if (width <= fitting->max_width && height <= fitting->max_height) return;
    double scale = MIN((double)fitting->max_width / width, (double)fitting->max_height / height);
    int scaled_width = MAX(1, (int)(width * scale + 0.5));
    int scaled_height = MAX(1, (int)(height * scale + 0.5));
    gdk_pixbuf_loader_set_size(loader, scaled_width, scaled_height);
}

GdkPixbuf *pb_pixbuf_load_fitting(const guchar *bytes, gsize length, int max_width, int max_height, GError **error) {
    PbFitting fitting = {max_width, max_height};
    GdkPixbufLoader *loader = gdk_pixbuf_loader_new();
    g_signal_connect(loader, "size-prepared", G_CALLBACK(pb_pixbuf_size_prepared), &fitting);
    gboolean written = gdk_pixbuf_loader_write(loader, bytes, length, error);
    // close() must run either way; its error matters only when writing succeeded.
    gboolean closed = gdk_pixbuf_loader_close(loader, written ? error : NULL);
    GdkPixbuf *pixbuf = NULL;
    if (written && closed) {
        pixbuf = gdk_pixbuf_loader_get_pixbuf(loader);
        if (pixbuf != NULL) {
            g_object_ref(pixbuf);
        } else if (error != NULL && *error == NULL) {
            g_set_error_literal(error, GDK_PIXBUF_ERROR, GDK_PIXBUF_ERROR_CORRUPT_IMAGE, "the image holds no picture");
        }
    }
    g_object_unref(loader);
    return pixbuf;
}
