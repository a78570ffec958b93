// Package adminclient is the one client of the operator API (/admin/v1,
// decisions §9): the CLI's admin commands, the load test and
// parcelgatetest.Admin all call the operator API through it.
package adminclient

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
)

// DefaultMaxAnswer caps the answer a call reads when Client.MaxAnswer is 0:
// the longest operator answers (a page of the request journal with its
// bodies) stay well below it.
const DefaultMaxAnswer = 64 << 20

// Client calls the operator API of the server at BaseURL with the admin
// token Token.
type Client struct {
	BaseURL string
	Token   string
	// HTTP makes the calls; nil is http.DefaultClient.
	HTTP *http.Client
	// MaxAnswer caps the bytes of an answer read; 0 is DefaultMaxAnswer.
	MaxAnswer int64
}

// Error is a call the server refused: it answered a status of 300 or
// more.
type Error struct {
	Method, URL string
	Status      int
	// StatusText is the status line's text, e.g. "404 Not Found".
	StatusText string
	Body       []byte
}

// Message is the message of the operator API's error body, "" when the
// body has none.
func (e *Error) Message() string {
	var b struct{ Message string }
	if json.Unmarshal(e.Body, &b) != nil {
		return ""
	}
	return b.Message
}

func (e *Error) Error() string {
	msg := e.Method + " " + e.URL + ": " + e.StatusText
	if m := e.Message(); m != "" {
		msg += ": " + m
	}
	return msg
}

// Request builds the call of method on path (relative to BaseURL, with
// its query), with body as its JSON body when body is not nil.
func (c *Client) Request(ctx context.Context, method, path string, body any) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	return req, nil
}

// Send makes a call built by Request and returns the answer's body; a
// status of 300 or more is an *Error.
func (c *Client) Send(req *http.Request) ([]byte, error) {
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	limit := c.MaxAnswer
	if limit <= 0 {
		limit = DefaultMaxAnswer
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		return nil, &Error{Method: req.Method, URL: req.URL.String(), Status: resp.StatusCode, StatusText: resp.Status, Body: raw}
	}
	return raw, nil
}

// Call calls method on path with body (see Request) and decodes a JSON
// answer into out, unless out is nil.
func (c *Client) Call(ctx context.Context, method, path string, body, out any) error {
	req, err := c.Request(ctx, method, path, body)
	if err != nil {
		return err
	}
	raw, err := c.Send(req)
	if err != nil || out == nil {
		return err
	}
	return json.Unmarshal(raw, out)
}
