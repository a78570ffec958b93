package parcelgate

import "strings"

// SandboxControl is an operator control that throws data away or makes an
// environment behave unlike the real service (decisions §18).
type SandboxControl string

const (
	// ControlReset empties an organization's or an environment's data.
	ControlReset SandboxControl = "reset"
	// ControlRestore puts an organization back as a snapshot saved it.
	ControlRestore SandboxControl = "restore"
	// ControlFault makes matching API calls fail or slow down.
	ControlFault SandboxControl = "fault"
	// ControlClock moves an environment's clock forward.
	ControlClock SandboxControl = "clock"
)

// DecideSandboxControl decides whether control may act on the environment
// named env on a server whose sandbox mode is sandbox (decisions §18):
//
//   - the call must name its environment: an empty one is refused (400
//     naming environment), so no control acts on production by default;
//   - the test environment's data is always disposable;
//   - production's only on a server started with --sandbox (--demo and
//     --db memory imply it); elsewhere 403 naming --sandbox.
//
// It returns the environment the control acts on.
func DecideSandboxControl(sandbox bool, env string, control SandboxControl) (Environment, error) {
	if strings.TrimSpace(env) == "" {
		return "", &Error{Code: EINVALID, Message: "Name the environment this " + string(control) + " acts on: environment=production or environment=test.",
			Fields: []FieldError{{Field: "environment", Message: "is required: production or test"}}}
	}
	e, err := ParseEnvironment(env)
	if err != nil {
		return "", &Error{Code: EINVALID, Message: ErrorMessage(err),
			Fields: []FieldError{{Field: "environment", Message: "must be production or test"}}}
	}
	if e == Production && !sandbox {
		return "", Errorf(EFORBIDDEN, "Production data is not disposable on this server: a %s of production needs a server started with --sandbox (the test environment allows it on any server).", control)
	}
	return e, nil
}
