/// The app's style sheet. Colours come from the theme (`currentColor`, the theme's named colours), so the app
/// follows a light or dark theme.
enum Styles {
    static let css = """
        .chip {
            padding: 6px 8px;
            border-radius: 8px;
            background-color: alpha(currentColor, 0.05);
            border: 1px solid alpha(currentColor, 0.12);
        }
        .chip.pinned { border-color: @theme_selected_bg_color; }
        listview.strip > row { padding: 4px; border-radius: 10px; }
        listview.strip > row:selected .chip { background-color: alpha(@theme_selected_bg_color, 0.25); }
        .history-row { padding: 4px 6px; }
        .chip.marked { border: 2px solid @theme_selected_bg_color; }
        .history-row.marked { background-color: alpha(@theme_selected_bg_color, 0.15); border-radius: 6px; }
        .mark-badge {
            min-width: 18px;
            padding: 0 5px;
            border-radius: 9px;
            background-color: @theme_selected_bg_color;
            color: @theme_selected_fg_color;
            font-weight: bold;
            font-size: smaller;
        }
        .marks-bar { padding: 4px 8px; border-radius: 6px; background-color: alpha(@theme_selected_bg_color, 0.12); }
        .row-meta { font-size: smaller; }
        .preview-heading { font-size: larger; font-weight: bold; }
        .preview-text { font-size: 13pt; }
        .preview-placeholder { font-size: larger; }
        .banner {
            padding: 6px 10px;
            border-radius: 6px;
            background-color: alpha(currentColor, 0.08);
        }
        .banner.error { background-color: alpha(@error_color, 0.18); }
        .download-card {
            padding: 18px;
            border-radius: 12px;
            background-color: @theme_base_color;
            color: @theme_text_color;
            border: 1px solid alpha(currentColor, 0.25);
            box-shadow: 0 4px 16px alpha(black, 0.35);
        }
        .download-card progressbar > text { color: @theme_text_color; }
        .popup { border: 1px solid alpha(currentColor, 0.25); }
        """
}
