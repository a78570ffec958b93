package console

import (
	"net/http"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// curlCommand is a journaled request as a ready curl command against
// origin, the way API dashboards offer it. The journal keeps no headers
// and redacts secrets, so the credentials are placeholders: the token
// request's basic credentials, or the bearer token of every other call.
func curlCommand(e *parcelgate.JournalEntry, origin string) string {
	if e == nil {
		return ""
	}
	target := origin + e.Path
	if e.Query != "" {
		target += "?" + e.Query
	}
	var b strings.Builder
	b.WriteString("curl")
	if e.Method != http.MethodGet {
		b.WriteString(" -X " + e.Method)
	}
	b.WriteString(" " + shellQuote(target))
	if strings.HasSuffix(e.Path, "/token") {
		b.WriteString(" \\\n  -u " + shellQuote("<username or client_id>:<password or client_secret>"))
	} else {
		b.WriteString(" \\\n  -H " + shellQuote("Authorization: Bearer <access_token>"))
	}
	if e.RequestBody != "" {
		body := strings.ReplaceAll(e.RequestBody, "[redacted]", "<secret>")
		ct := "application/json"
		if t := strings.TrimSpace(body); !strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "[") {
			ct = "application/x-www-form-urlencoded"
		}
		b.WriteString(" \\\n  -H " + shellQuote("Content-Type: "+ct))
		b.WriteString(" \\\n  --data-raw " + shellQuote(body))
	}
	if e.Truncated {
		b.WriteString("\n# The journal kept only the start of a body: this command sends it cut short.")
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell: single quotes, each ' inside
// written as '\”.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// origin is the scheme and host the browser reached the console at, for
// commands that call the same server.
func origin(r *http.Request) string {
	scheme := "http"
	if secureRequest(r) {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
