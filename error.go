package parcelgate

import (
	"errors"
	"fmt"
)

// Error codes. They say what kind of failure happened; each HTTP surface maps
// them onto its own status codes and error body (decisions §5 and §8).
const (
	EINVALID      = "invalid"      // the request is malformed or breaks a rule
	ENOTFOUND     = "not_found"    // no such object for this caller
	ECONFLICT     = "conflict"     // the object exists, or its state forbids the change
	EUNAUTHORIZED = "unauthorized" // no valid credentials
	EFORBIDDEN    = "forbidden"    // valid credentials that may not do this
	ETOOLARGE     = "too_large"    // a body or array over its cap
	EINTERNAL     = "internal"     // a fault of ours
	EUNAVAILABLE  = "unavailable"  // a dependency (the database) is unreachable
	ERATELIMITED  = "rate_limited" // too many requests for one credential
	EUNSUPPORTED  = "unsupported"  // e.g. a media type we do not read
)

// FieldError is one problem with one field of a request. Index is the
// position of the offending element in a request array, when there is one.
type FieldError struct {
	Index   *int   `json:"index,omitempty"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is the error type of the domain. Message is safe to show to the
// caller; internal causes are never put in it.
type Error struct {
	Code    string
	Message string
	Fields  []FieldError
}

func (e *Error) Error() string {
	if len(e.Fields) == 0 {
		return fmt.Sprintf("parcelgate: %s: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("parcelgate: %s: %s (%d field errors, first %s: %s)", e.Code, e.Message, len(e.Fields), e.Fields[0].Field, e.Fields[0].Message)
}

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the *Error in err's chain; EINTERNAL for any
// other non-nil error.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the caller-safe message of err.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Message
	}
	return "Internal error."
}

// ErrorFields returns the field errors carried by err, if any.
func ErrorFields(err error) []FieldError {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Fields
	}
	return nil
}

// MaxProblems bounds the field errors one answer lists: a hostile body with
// a million bad rows is answered with the first MaxProblems and a count of
// the rest, not with a body larger than the request.
const MaxProblems = 100

// Problems collects field errors so that a request with several problems is
// answered with all of them at once (up to MaxProblems, then only counted).
type Problems struct {
	list []FieldError
	more int
}

// Add records a problem with field.
func (p *Problems) Add(field, format string, args ...any) {
	p.add(FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

// AddAt records a problem with field of the element at index i of a request array.
func (p *Problems) AddAt(i int, field, format string, args ...any) {
	idx := i
	p.add(FieldError{Index: &idx, Field: field, Message: fmt.Sprintf(format, args...)})
}

// AddFields records field errors as they are, such as those another
// check returned (ErrorFields of its error).
func (p *Problems) AddFields(fs ...FieldError) {
	for _, f := range fs {
		p.add(f)
	}
}

func (p *Problems) add(f FieldError) {
	if len(p.list) >= MaxProblems {
		p.more++
		return
	}
	p.list = append(p.list, f)
}

// Len is how many problems were recorded, listed or only counted.
func (p *Problems) Len() int { return len(p.list) + p.more }

// List returns the recorded problems (at most MaxProblems).
func (p *Problems) List() []FieldError { return p.list }

// Err returns nil when there are no problems, else an EINVALID *Error
// carrying them; past MaxProblems the list ends with a "(more)" entry that
// says how many were left out.
func (p *Problems) Err() error {
	if p.Len() == 0 {
		return nil
	}
	msg := p.list[0].Field + ": " + p.list[0].Message
	if n := p.Len(); n > 1 {
		msg = fmt.Sprintf("%s (and %d more)", msg, n-1)
	}
	fields := p.list
	if p.more > 0 {
		fields = append(fields[:len(fields):len(fields)], FieldError{Field: "(more)", Message: fmt.Sprintf("and %d more problems", p.more)})
	}
	return &Error{Code: EINVALID, Message: "Validation failed: " + msg, Fields: fields}
}

// Invalid is the EINVALID of one problem with field, as Problems.Err
// answers it: for a check that stops at its first problem.
func Invalid(field, format string, args ...any) error {
	var p Problems
	p.Add(field, format, args...)
	return p.Err()
}

// errorStatus is the HTTP status of each error code, the same on every
// surface that answers over HTTP: the API's error bodies (decisions §5,
// §8) and the console's error pages. Written as numbers: the root speaks
// no HTTP, it only names the status a code is answered with.
var errorStatus = map[string]int{
	EINVALID:      400, // Bad Request
	EUNAUTHORIZED: 401, // Unauthorized
	EFORBIDDEN:    403, // Forbidden
	ENOTFOUND:     404, // Not Found
	ECONFLICT:     409, // Conflict
	ETOOLARGE:     413, // Content Too Large
	EUNSUPPORTED:  415, // Unsupported Media Type
	ERATELIMITED:  429, // Too Many Requests
	EUNAVAILABLE:  503, // Service Unavailable
}

// ErrorStatus is the HTTP status err is answered with: its code's
// (decisions §5, §8), 500 for EINTERNAL and any error that is not an
// *Error. The API and the console both map errors by it.
func ErrorStatus(err error) int {
	if s, ok := errorStatus[ErrorCode(err)]; ok {
		return s
	}
	return 500
}
