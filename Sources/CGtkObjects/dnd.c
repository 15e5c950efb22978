#include "CGtkObjects.h"

typedef struct {
    PbDragPrepare prepare;
    gpointer data;
    GDestroyNotify release;
} PbDragClosure;

static GdkContentProvider *pb_drag_prepare(GtkDragSource *source, double x, double y, gpointer user) {
    (void)source;
    (void)x;
    (void)y;
    PbDragClosure *closure = user;
    return closure->prepare(closure->data);
}

static void pb_drag_closure_free(gpointer user, GClosure *unused) {
    (void)unused;
    PbDragClosure *closure = user;
    if (closure->release != NULL) closure->release(closure->data);
    g_free(closure);
}

void pb_drag_source_attach(GtkWidget *widget, PbDragPrepare prepare, gpointer data, GDestroyNotify release) {
    GtkDragSource *source = gtk_drag_source_new();
    gtk_drag_source_set_actions(source, GDK_ACTION_COPY);
    PbDragClosure *closure = g_new0(PbDragClosure, 1);
    closure->prepare = prepare;
    closure->data = data;
    closure->release = release;
    g_signal_connect_data(source, "prepare", G_CALLBACK(pb_drag_prepare), closure, pb_drag_closure_free, 0);
    gtk_widget_add_controller(widget, GTK_EVENT_CONTROLLER(source));
}

GdkContentProvider *pb_content_provider_new(const char *const *mimes, const guint8 *const *datas, const gsize *lengths,
                                            guint count) {
    GdkContentProvider **providers = g_new0(GdkContentProvider *, count);
    for (guint index = 0; index < count; index++) {
        GBytes *bytes = g_bytes_new(datas[index], lengths[index]);
        providers[index] = gdk_content_provider_new_for_bytes(mimes[index], bytes);
        g_bytes_unref(bytes);
    }
    // The union takes the providers' references and copies the array.
    GdkContentProvider *provider = gdk_content_provider_new_union(providers, count);
    g_free(providers);
    return provider;
}

typedef struct {
    PbDropHandler handler;
    gpointer data;
    GDestroyNotify release;
} PbDropClosure;

static gboolean pb_drop(GtkDropTarget *target, const GValue *value, double x, double y, gpointer user) {
    (void)x;
    (void)y;
    PbDropClosure *closure = user;
    GdkDrop *drop = gtk_drop_target_get_current_drop(target);
    if (drop != NULL && gdk_drop_get_drag(drop) != NULL) return FALSE;  // our own item, dragged onto ourselves
    if (G_VALUE_HOLDS(value, GDK_TYPE_FILE_LIST)) {
        GString *list = g_string_new(NULL);
        for (GSList *file = g_value_get_boxed(value); file != NULL; file = file->next) {
            char *name = g_file_get_path(file->data);
            if (name == NULL) name = g_file_get_uri(file->data);
            if (name == NULL) continue;
            if (list->len > 0) g_string_append_c(list, '\n');
            g_string_append(list, name);
            g_free(name);
        }
        gboolean taken = list->len > 0 && closure->handler(PB_DROP_FILES, list->str, NULL, 0, closure->data);
        g_string_free(list, TRUE);
        return taken;
    }
    if (G_VALUE_HOLDS(value, GDK_TYPE_TEXTURE)) {
        GBytes *png = gdk_texture_save_to_png_bytes(g_value_get_object(value));
        gsize length = 0;
        const guint8 *bytes = g_bytes_get_data(png, &length);
        gboolean taken = closure->handler(PB_DROP_IMAGE, NULL, bytes, length, closure->data);
        g_bytes_unref(png);
        return taken;
    }
    if (G_VALUE_HOLDS(value, G_TYPE_STRING)) {
        const char *text = g_value_get_string(value);
        return text != NULL && closure->handler(PB_DROP_TEXT, text, NULL, 0, closure->data);
    }
    return FALSE;
}

static void pb_drop_closure_free(gpointer user, GClosure *unused) {
    (void)unused;
    PbDropClosure *closure = user;
    if (closure->release != NULL) closure->release(closure->data);
    g_free(closure);
}

void pb_drop_target_attach(GtkWidget *widget, PbDropHandler handler, gpointer data, GDestroyNotify release) {
    GtkDropTarget *target = gtk_drop_target_new(G_TYPE_INVALID, GDK_ACTION_COPY);
    GType types[] = {GDK_TYPE_FILE_LIST, GDK_TYPE_TEXTURE, G_TYPE_STRING};
    gtk_drop_target_set_gtypes(target, types, G_N_ELEMENTS(types));
    PbDropClosure *closure = g_new0(PbDropClosure, 1);
    closure->handler = handler;
    closure->data = data;
    closure->release = release;
    g_signal_connect_data(target, "drop", G_CALLBACK(pb_drop), closure, pb_drop_closure_free, 0);
    gtk_widget_add_controller(widget, GTK_EVENT_CONTROLLER(target));
}
