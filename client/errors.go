package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Error is an answer other than 2xx from any of the APIs or token services.
// The three error bodies of the interface all decode into it:
//
//   - the gateway's {errorCode, message, details}: Code is the errorCode
//     (VALIDATION_ERROR, NOT_FOUND, ...), Fields the details;
//   - the ecom API's {timestamp, status, error, message, path, errors}: Code
//     is the error ("Bad Request", "Unauthorized", ...), Fields the errors;
//   - the token services' RFC 6749 {error, error_description}: Code is the
//     error (invalid_client, ...), Message the description.
//
// Use errors.As to get at it:
//
//	var e *client.Error
//	if errors.As(err, &e) && e.StatusCode == http.StatusNotFound { ... }
type Error struct {
	// StatusCode is the HTTP status of the answer.
	StatusCode int
	// Code is the surface's error code; see the type's description.
	Code string
	// Message is the server's explanation, meant for people.
	Message string
	// Fields lists the problems with single fields of the request, each
	// with its position in a request array when it has one.
	Fields []FieldError
	// RequestID is the server's ID of the request (X-Request-ID); quote it
	// when asking the operator about a failure.
	RequestID string
	// RetryAfter is the wait the server asked for with a 429 or 503.
	RetryAfter time.Duration
	// Method and URL are those of the request that failed.
	Method string
	URL    string
	// Body is the answer's body as it came, at most 64 KiB of it.
	Body []byte
}

// FieldError is one problem with one field of a request.
type FieldError struct {
	// Index is the position of the element in a request array the problem
	// is with, when the request is an array.
	Index   *int   `json:"index,omitempty"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("parcelgate: ")
	if e.Method != "" {
		fmt.Fprintf(&b, "%s %s: ", e.Method, e.URL)
	}
	fmt.Fprintf(&b, "%d", e.StatusCode)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	shown := 0
	for i, f := range e.Fields {
		// The message often is the first field's problem already: say it
		// once.
		if i == 0 && e.Message != "" && strings.Contains(e.Message, f.Message) {
			continue
		}
		if shown == 3 {
			fmt.Fprintf(&b, "; and %d more", len(e.Fields)-i)
			break
		}
		shown++
		b.WriteString("; ")
		if f.Index != nil {
			fmt.Fprintf(&b, "[%d] ", *f.Index)
		}
		b.WriteString(f.Field + ": " + f.Message)
	}
	if e.RequestID != "" {
		b.WriteString(" (request " + e.RequestID + ")")
	}
	return b.String()
}

// Temporary reports whether the failure may pass by itself: 429, 502, 503
// and 504. The Client has already retried these calls when they are safe to
// repeat.
func (e *Error) Temporary() bool { return retryableStatus(e.StatusCode) }

// responseError reads a non-2xx answer into an *Error.
func responseError(resp *http.Response) *Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return parseError(resp, body)
}

func parseError(resp *http.Response, body []byte) *Error {
	e := &Error{
		StatusCode: resp.StatusCode,
		RequestID:  resp.Header.Get("X-Request-ID"),
		RetryAfter: retryAfter(resp.Header, time.Now()),
		Body:       body,
	}
	if req := resp.Request; req != nil && req.URL != nil {
		u := *req.URL
		u.User = nil
		e.Method, e.URL = req.Method, u.String()
	}
	var b struct {
		ErrorCode        string          `json:"errorCode"`
		Message          string          `json:"message"`
		Details          json.RawMessage `json:"details"`
		Error            json.RawMessage `json:"error"`
		ErrorDescription string          `json:"error_description"`
		Errors           json.RawMessage `json:"errors"`
	}
	if json.Unmarshal(body, &b) != nil {
		// Not one of ours: a proxy's page, say. Its text is the message.
		e.Message = truncate(bytes.TrimSpace(body))
		if e.Message == "" || strings.HasPrefix(e.Message, "<") {
			e.Message = http.StatusText(resp.StatusCode)
		}
		return e
	}
	var code string
	json.Unmarshal(b.Error, &code)
	e.Code = b.ErrorCode
	if e.Code == "" {
		e.Code = code
	}
	e.Message = b.Message
	if e.Message == "" {
		e.Message = b.ErrorDescription
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	for _, raw := range []json.RawMessage{b.Details, b.Errors} {
		var fields []FieldError
		if json.Unmarshal(raw, &fields) == nil && len(fields) > 0 {
			e.Fields = append(e.Fields, fields...)
		}
	}
	return e
}

func truncate(b []byte) string {
	const max = 300
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}
