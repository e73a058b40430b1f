package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/retrylab/retrylab/site/markdown"
)

// liveOptions are the live API panel's settings for a build of the site
// at root: its script and stylesheet under their hashed names (the names
// the assets step gives them), and the API's origin.
//
// The API's origin is configured in one place, the connect-src directive
// of netlify.toml's policy for every page: the one source besides 'self'.
// The pages then call exactly the origin their policy allows. The panel
// asks its own origin first (`serve` answers /v1/ itself), then that one.
// key names the settings, so that a conversion made with others is not
// reused (buildCache).
func liveOptions(root string) (opts []markdown.LiveOption, key string, err error) {
	static := filepath.Join(root, "site", "static")
	js, err := os.ReadFile(filepath.Join(static, "live.js"))
	if err != nil {
		return nil, "", err
	}
	css, err := os.ReadFile(filepath.Join(static, "live.css"))
	if err != nil {
		return nil, "", err
	}
	jsURL := "/" + staticDir + "/" + hashedName("live.js", js)
	cssURL := "/" + staticDir + "/" + hashedName("live.css", css)
	origin, err := connectOrigin(filepath.Join(root, "netlify.toml"))
	if err != nil {
		return nil, "", err
	}
	opts = []markdown.LiveOption{markdown.LiveAssets(jsURL, cssURL), markdown.LiveAPI(origin)}
	return opts, jsURL + " " + cssURL + " " + origin, nil
}

// connectOrigin reads the origin besides 'self' in the connect-src of the
// Content-Security-Policy that netlify.toml sets for "/*"; "" if none.
func connectOrigin(toml string) (string, error) {
	rules, err := loadHeaders(toml)
	if err != nil {
		return "", err
	}
	for _, r := range rules {
		if r.For != "/*" {
			continue
		}
		for _, f := range r.Values {
			if f.Name != "Content-Security-Policy" {
				continue
			}
			for _, d := range strings.Split(f.Value, ";") {
				fields := strings.Fields(d)
				if len(fields) == 0 || fields[0] != "connect-src" {
					continue
				}
				var others []string
				for _, s := range fields[1:] {
					if s != "'self'" {
						others = append(others, s)
					}
				}
				switch {
				case len(others) > 1:
					return "", fmt.Errorf("%s: connect-src names %s: the live API panel calls one API origin", toml, strings.Join(others, " "))
				case len(others) == 1:
					if !strings.HasPrefix(others[0], "https://") && !strings.HasPrefix(others[0], "http://") {
						return "", fmt.Errorf("%s: connect-src source %q is not an origin such as https://api.example", toml, others[0])
					}
					return strings.TrimSuffix(others[0], "/"), nil
				}
				return "", nil
			}
		}
	}
	return "", nil
}
