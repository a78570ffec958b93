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

// Problems collects field errors so that a request with several problems is
// answered with all of them at once.
type Problems []FieldError

// Add records a problem with field.
func (p *Problems) Add(field, format string, args ...any) {
	*p = append(*p, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

// AddAt records a problem with field of the element at index i of a request array.
func (p *Problems) AddAt(i int, field, format string, args ...any) {
	idx := i
	*p = append(*p, FieldError{Index: &idx, Field: field, Message: fmt.Sprintf(format, args...)})
}

// Err returns nil when there are no problems, else an EINVALID *Error
// carrying all of them.
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	msg := p[0].Field + ": " + p[0].Message
	if len(p) > 1 {
		msg = fmt.Sprintf("%s (and %d more)", msg, len(p)-1)
	}
	return &Error{Code: EINVALID, Message: "Validation failed: " + msg, Fields: p}
}
