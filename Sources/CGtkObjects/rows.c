#include "CGtkObjects.h"

// Row slots of a GtkListView that a click activates and whose selection follows the keyboard focus, without GTK
// 4.8's single-click-activate mode: that mode also selects whichever row the pointer passes over (a motion
// controller on every row), so a key pressed after the pointer crossed a row acted on that row, not on the one the
// user clicked or moved to.

static const char *const activates_key = "pb-activates-on-click";
static const char *const item_key = "pb-list-item";
static const char *const slot_key = "pb-row-slot";
static const char *const holds_key = "pb-focus-select-held";

void pb_list_hold_focus_select(GtkWidget *list, gboolean held) {
    g_object_set_data(G_OBJECT(list), holds_key, GINT_TO_POINTER(held ? 1 : 0));
}

void pb_list_set_activates_on_click(GtkWidget *list, gboolean activates) {
    g_object_set_data(G_OBJECT(list), activates_key, GINT_TO_POINTER(activates ? 1 : 0));
}

gboolean pb_list_get_activates_on_click(GtkWidget *list) {
    return GPOINTER_TO_INT(g_object_get_data(G_OBJECT(list), activates_key)) != 0;
}

static const char *const modified_click_key = "pb-modified-click";

typedef struct {
    PbListModifiedClick handler;
    gpointer context;
    GDestroyNotify release;
} PbModifiedClick;

static void pb_modified_click_free(gpointer data) {
    PbModifiedClick *click = data;
    if (click->release != NULL) click->release(click->context);
    g_free(click);
}

void pb_list_set_modified_click(GtkWidget *list, PbListModifiedClick handler, gpointer context, GDestroyNotify release) {
    PbModifiedClick *click = g_new0(PbModifiedClick, 1);
    click->handler = handler;
    click->context = context;
    click->release = release;
    g_object_set_data_full(G_OBJECT(list), modified_click_key, click, pb_modified_click_free);
}

static void pb_weak_ref_free(gpointer data) {
    g_weak_ref_clear(data);
    g_free(data);
}

/// The list view a row's widget is in, when it is one.
static GtkWidget *pb_row_list(GtkWidget *widget) { return gtk_widget_get_ancestor(widget, GTK_TYPE_LIST_VIEW); }

static void pb_row_pressed(GtkGestureClick *gesture, int n_press, double x, double y, gpointer data) {
    GtkWidget *widget = gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(gesture));
    GtkWidget *list = pb_row_list(widget);
    // The second press of a double click is taken here: the slot's own gesture would activate the row a second time.
    if (n_press > 1 && list != NULL && pb_list_get_activates_on_click(list)) {
        gtk_gesture_set_state(GTK_GESTURE(gesture), GTK_EVENT_SEQUENCE_CLAIMED);
    }
}

static void pb_row_released(GtkGestureClick *gesture, int n_press, double x, double y, gpointer data) {
    if (n_press != 1) return;
    GtkWidget *widget = gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(gesture));
    GtkWidget *list = pb_row_list(widget);
    if (list == NULL || !pb_list_get_activates_on_click(list)) return;
    GtkListItem *item = g_weak_ref_get(data);
    if (item == NULL) return;
    guint position = gtk_list_item_get_position(item);
    g_object_unref(item);
    if (position == GTK_INVALID_LIST_POSITION) return;
    GdkModifierType state = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(gesture));
    PbModifiedClick *click = g_object_get_data(G_OBJECT(list), modified_click_key);
    if (click != NULL && (state & (GDK_CONTROL_MASK | GDK_SHIFT_MASK)) != 0) {
        // Ctrl or Shift: a mark (several items chosen), not a restore.
        click->handler(click->context, position, (state & GDK_SHIFT_MASK) != 0, (state & GDK_CONTROL_MASK) != 0);
        return;
    }
    // Released on the row it was pressed on (a press that became a drag or left the row is cancelled instead).
    gtk_widget_activate_action(widget, "list.activate-item", "u", position);
}

static void pb_slot_focus_enter(GtkEventControllerFocus *controller, gpointer data) {
    GtkWidget *slot = gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(controller));
    GtkListItem *item = g_weak_ref_get(data);
    if (item == NULL) return;
    guint position = gtk_list_item_get_position(item);
    gboolean selected = gtk_list_item_get_selected(item);
    g_object_unref(item);
    if (position == GTK_INVALID_LIST_POSITION || selected) return;
    // While the rows are being replaced, GTK moves the focus to whichever row now sits where the focused one was:
    // that is no choice of the user's, and the selection stays (the app then brings the focus to it).
    GtkWidget *list = pb_row_list(slot);
    if (list != NULL && GPOINTER_TO_INT(g_object_get_data(G_OBJECT(list), holds_key)) != 0) return;
    gtk_widget_activate_action(slot, "list.select-item", "(ubb)", position, FALSE, FALSE);
}

static const char *label_key = "pasteboard-accessible-label";

static void pb_set_label(GtkWidget *widget, const char *label) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

void pb_row_set_accessible_label(GtkWidget *row, const char *label) {
    g_object_set_data_full(G_OBJECT(row), label_key, g_strdup(label), g_free);
    pb_set_label(row, label);
    GtkWidget *slot = gtk_widget_get_parent(row);
    if (slot != NULL) pb_set_label(slot, label);
}

void pb_accessible_label_descendants(GtkWidget *widget, GType type, const char *label) {
    for (GtkWidget *child = gtk_widget_get_first_child(widget); child != NULL;
         child = gtk_widget_get_next_sibling(child)) {
        if (G_TYPE_CHECK_INSTANCE_TYPE(child, type)) pb_set_label(child, label);
        pb_accessible_label_descendants(child, type, label);
    }
}

void pb_list_item_prepare(GtkListItem *item) {
    GtkWidget *child = gtk_list_item_get_child(item);
    if (child != NULL && g_object_get_data(G_OBJECT(child), slot_key) == NULL) {
        g_object_set_data(G_OBJECT(child), slot_key, GINT_TO_POINTER(1));
        GWeakRef *ref = g_new0(GWeakRef, 1);
        g_weak_ref_init(ref, item);
        GtkGesture *click = gtk_gesture_click_new();
        g_signal_connect(click, "pressed", G_CALLBACK(pb_row_pressed), NULL);
        g_signal_connect_data(click, "released", G_CALLBACK(pb_row_released), ref, (GClosureNotify)pb_weak_ref_free,
                              0);
        gtk_widget_add_controller(child, GTK_EVENT_CONTROLLER(click));
    }
    // The slot (the list's own widget holding the child) is there once the row is bound.
    GtkWidget *slot = child != NULL ? gtk_widget_get_parent(child) : NULL;
    if (slot != NULL && g_object_get_data(G_OBJECT(slot), item_key) == NULL) {
        g_object_set_data_full(G_OBJECT(slot), item_key, g_object_ref(item), g_object_unref);
        GWeakRef *ref = g_new0(GWeakRef, 1);
        g_weak_ref_init(ref, item);
        GtkEventController *focus = gtk_event_controller_focus_new();
        g_signal_connect_data(focus, "enter", G_CALLBACK(pb_slot_focus_enter), ref, (GClosureNotify)pb_weak_ref_free,
                              0);
        gtk_widget_add_controller(slot, focus);
    }
    const char *label = child != NULL ? g_object_get_data(G_OBJECT(child), label_key) : NULL;
    if (slot != NULL && label != NULL) pb_set_label(slot, label);
}

guint pb_list_focused_position(GtkWidget *list) {
    GtkRoot *root = gtk_widget_get_root(list);
    GtkWidget *focus = root != NULL ? gtk_root_get_focus(root) : NULL;
    while (focus != NULL && gtk_widget_get_parent(focus) != list) focus = gtk_widget_get_parent(focus);
    if (focus == NULL) return GTK_INVALID_LIST_POSITION;
    GtkListItem *item = g_object_get_data(G_OBJECT(focus), item_key);
    return item != NULL ? gtk_list_item_get_position(item) : GTK_INVALID_LIST_POSITION;
}
