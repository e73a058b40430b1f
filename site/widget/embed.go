package widget

import (
	"errors"
	"strconv"
	"strings"
)

// Place is where a widget is drawn.
type Place struct {
	// ID is the widget's id, unique in its page: "w-" + its name + "-" + a
	// count, as site/markdown numbers them ("w-payment-1"). It prefixes the
	// ids of the widget's controls, and a permalink names the widget by it.
	ID string
	// Origin is the site's scheme and host ("https://retrylab.example"),
	// which the embed snippet loads embed.js from.
	Origin string
	// Article is the page the widget's permalink opens: empty on the page
	// the widget is on, where the link names that page's widget. An embed
	// page sets its widget's chapter ("/double-charge/"), which has a
	// widget of the same id; the link then opens it in a new tab, out of
	// the other site's frame (see toolbar).
	Article string
	// Shown names the parameters whose controls are shown, in the
	// widget's order, the others folded under More parameters: a page's
	// block shows what its section changes. Nil shows those the widget
	// declares.
	Shown []string
}

// PermalinkParam is the query parameter of a permalink that names the
// widget of the page it is for: its id without the leading "w-". No
// widget has a parameter of that name (the registry's tests check).
const PermalinkParam = "w"

// Snippet is the HTML that shows widget name, in the state v, in another
// page: a div whose data-* attributes are the parameters that differ from
// their defaults, which embed.js, loaded from origin, turns into an iframe
// of /embed/NAME/ with those parameters as its query.
func Snippet(name string, v Values, origin string) string {
	var h HTML
	attrs := []string{"data-retrylab", name}
	for _, kv := range v.changed() {
		attrs = append(attrs, "data-"+kv[0], kv[1])
	}
	h.Open("div", attrs...).Close("div")
	h.Open("script", "src", origin+"/embed.js", "async", "true").Close("script")
	return h.String()
}

// Permalink is the relative URL of the page a widget is on, with the
// widget in the state v: "?w=payment-1&keys=per-intent#w-payment-1" for
// the widget with id "w-payment-1". The fragment scrolls to the widget;
// the page's module reads the query (see SplitPermalink) and redraws that
// widget in that state.
func Permalink(id string, v Values) string {
	q := PermalinkParam + "=" + queryEscape(strings.TrimPrefix(id, "w-"))
	if rest := v.Query(); rest != "" {
		q += "&" + rest
	}
	return "?" + q + "#" + id
}

// SplitPermalink reads a page's query string (with or without its "?"):
// the id of the widget a permalink names, and the query without the
// permalink's parameter, which is the widget's parameters, for
// Schema.ParseQuery. id is "" when the query names no widget; a query
// whose w is empty, badly escaped or given twice names none either, and
// keeps its w in rest, where ParseQuery reports it.
func SplitPermalink(query string) (id, rest string) {
	query = strings.TrimPrefix(query, "?")
	var kept []string
	found := 0
	for _, part := range strings.Split(query, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		if k == PermalinkParam {
			if name, ok := queryUnescape(v); ok && name != "" {
				id = IDPrefix + name
			}
			found++
			continue
		}
		kept = append(kept, part)
	}
	if found != 1 || id == "" {
		return "", query
	}
	return id, strings.Join(kept, "&")
}

// SnippetError says what err, an error of s.ParseQuery on the query
// embed.js made of a snippet's data-* attributes, found wrong, in the
// words of the snippet: `data-keys="bogus" on the embed snippet is not
// allowed (allowed: off, per-intent, per-attempt)`. An error about no
// one parameter (a query badly encoded, which embed.js never writes) is
// returned as it says.
func (s Schema) SnippetError(err error) string {
	e, ok := errors.AsType[*Error](err)
	if !ok {
		return err.Error()
	}
	attr := "data-" + e.Param
	if e.Value == "" && strings.HasPrefix(e.Msg, "unknown parameter") {
		return attr + " on the embed snippet: " + e.Msg
	}
	if _, ok := s.Param(e.Param); !ok {
		return err.Error()
	}
	return attr + "=" + strconv.Quote(e.Value) + " on the embed snippet " + e.Msg
}

// changed lists the parameters whose values differ from their defaults, in
// schema order, each as its name and its value in the form a query or a
// data-* attribute carries: a list's items separated by bare commas.
func (v Values) changed() [][2]string {
	var out [][2]string
	for _, p := range v.Values.Schema() {
		if !v.IsDefault(p.Name) {
			// Split and Join, not strings.ReplaceAll: the page's module
			// links both already, and strings.Replace only for this.
			out = append(out, [2]string{p.Name, strings.Join(strings.Split(v.Text(p.Name), ", "), ",")})
		}
	}
	return out
}

// toolbar writes the links and buttons at the top of a widget: the
// permalink of its state, which the loader copies on click where the
// Clipboard API is allowed (a plain link otherwise), the line that says
// it was copied, and Reset, which the page's module wires. On an embed
// page the permalink opens the widget's chapter in that state, in a new
// tab rather than the top window: the reader keeps their place in the
// page that embeds the widget.
func toolbar(h *HTML, v Values, at Place) {
	h.Open("div", "class", "w-tools")
	href := at.Article + Permalink(at.ID, v)
	if at.Article == "" {
		h.Elem("a", "Link to this state", "href", href, "class", "w-permalink", "data-region", string(RegionPermalink))
	} else {
		h.Open("a", "href", href, "class", "w-permalink", "target", "_blank", "rel", "noopener", "data-region", string(RegionPermalink))
		h.Text("Open in retrylab").Elem("span", " (opens in a new tab)", "class", "visually-hidden")
		h.Close("a")
	}
	h.Elem("button", "Reset", "type", "button", "class", "w-reset", "data-action", string(ActionReset))
	if at.Article == "" {
		h.Elem("span", "", "class", "w-link-copied", "role", "status", "data-region", string(RegionLinkCopied))
	}
	h.Close("div")
}

// embedPanel writes the Embed disclosure at the foot of a widget: the
// snippet that embeds the widget as it stands and a button that copies
// it (wired by the page's loader). The page's module rewrites the snippet
// on every change; without JavaScript it shows the state the page was
// built with.
func embedPanel(h *HTML, w *Widget, v Values, at Place) {
	sid := at.ID + "-snippet"
	h.Open("details", "class", "w-embed")
	h.Elem("summary", "Embed")
	h.Open("div", "class", "w-embed-body")
	h.Elem("label", "To show this widget, set as it is now, in another page, paste:", "for", sid)
	h.Elem("textarea", Snippet(w.Name, v, at.Origin), "id", sid, "class", "w-snippet", "readonly", "true",
		"rows", "3", "spellcheck", "false", "data-region", string(RegionSnippet))
	h.Open("p", "class", "w-embed-actions")
	h.Elem("button", "Copy", "type", "button", "class", "w-copy", "data-action", string(ActionCopy), "aria-controls", sid)
	h.Elem("span", "", "class", "w-copied", "role", "status", "data-region", string(RegionCopied))
	h.Close("p")
	h.Close("div").Close("details")
}
