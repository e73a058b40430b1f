package widget

// openScroller opens the box of a figure that may be wider than a phone
// (guard's timeline), with the classes class: it scrolls sideways, is
// focusable (tabindex 0), so that the arrow keys scroll it, and is named
// by label and by what it does. Its first line is a hint that widget.css
// shows while there is more to see beside it, and its edges fade where
// the figure goes on. Close it with h.Close("div").
func openScroller(h *HTML, class, label string) {
	h.Open("div", "class", "w-scroll "+class, "tabindex", "0", "role", "group", "aria-label", label+", scrolls sideways")
	h.Elem("p", "Scroll sideways to see it all →", "class", "w-scroll-hint", "aria-hidden", "true")
}
