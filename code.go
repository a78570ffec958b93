package parcelgate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"regexp"
	"strings"
	"time"
)

// The code space (decisions §5). Sending codes and errand codes are both
// CodeLength characters of 0-9 and A-F, drawn from one space per
// environment, so a code written on a parcel never means two things. A code
// is held by one shipment or parcel while it is active: from its creation
// until the shipment is delivered or the retention period ends, whichever
// comes first. Then it is free to be handed out again.
const (
	CodeLength = 6
	// CodeSpace is the number of distinct codes: 16^6 = 16,777,216.
	CodeSpace = 1 << (4 * CodeLength)
	// DefaultCodeRetention is how long a code stays active when its
	// shipment is not delivered first.
	DefaultCodeRetention = 30 * 24 * time.Hour
)

var codePattern = regexp.MustCompile(`^[0-9A-F]{6}$`)

// NormalizeCode trims and upper-cases a code, so codes are looked up
// case-insensitively (decisions §5).
func NormalizeCode(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }

// ValidCode reports whether code, normalized, has the form of a code.
func ValidCode(code string) bool { return codePattern.MatchString(code) }

// NewCode draws a code uniformly from the whole space with crypto/rand:
// codes replace address labels, so they must not be guessable from the
// ones a client has seen.
func NewCode() string {
	var b [CodeLength / 2]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return strings.ToUpper(hex.EncodeToString(b[:]))
}

// SendingCode is the sending code record of interface §2.1: the code that
// replaces a shipment's printed label. Shipment is the shipment data held
// for its tracking number, nil when the code was made without it
// (noEdiCheck).
type SendingCode struct {
	TrackingNumber string    `json:"trackingNumber"`
	SendingCode    string    `json:"sendingCode"`
	CreatedAt      time.Time `json:"createdAt"`
	ExpiresAt      time.Time `json:"expiresAt"`
	Shipment       *Shipment `json:"-"`
}

// ErrandCodeResult is one element of the errand code answer (interface §2.2):
// the parcel as requested, its code (empty unless ResultText is OK) and the
// result of the lookup.
type ErrandCodeResult struct {
	ParcelID   string `json:"ParcelID"`
	ErrandCode string `json:"ErrandCode"`
	ResultText string `json:"ResultText"`
}

// Result texts of errand codes. ResultOK marks success (interface §2.2); the
// others say in words why a parcel has no code.
const (
	ResultOK                = "OK"
	ResultInvalidParcelID   = "Invalid parcel ID: must be 12-21 characters of A-Z and 0-9"
	ResultShipmentNotFound  = "Shipment data not found"
	ResultShipmentDelivered = "Shipment already delivered"
)

// SendingCodeDecision decides whether tracking number tn, whose shipment
// is in status ("" when the caller has no shipment data for it), gets a
// sending code (interface §4.1): a delivered shipment gets none
// (ECONFLICT); without noEdiCheck the shipment data must exist
// (ENOTFOUND); otherwise it does.
func SendingCodeDecision(tn string, status ShipmentStatus, noEdiCheck bool) error {
	switch {
	case status == ShipmentDelivered:
		return Errorf(ECONFLICT, "Shipment %s has been delivered; it needs no sending code.", tn)
	case status == "" && !noEdiCheck:
		return Errorf(ENOTFOUND, "Shipment not found")
	}
	return nil
}

// ErrandCodeOutcome decides the answer for one parcel of an errand code
// request (interface §4.2 rule 1, §2.2): parcelID is normalized, status is
// the state of the caller's shipment that holds the parcel ("" when there
// is none). resultText is the parcel's ResultText; holdsCode reports
// whether the parcel holds an errand code, given on first request: only a
// valid parcel of shipment data not yet delivered does.
func ErrandCodeOutcome(parcelID string, status ShipmentStatus) (resultText string, holdsCode bool) {
	switch {
	case !ValidParcelID(parcelID):
		return ResultInvalidParcelID, false
	case status == "":
		return ResultShipmentNotFound, false
	case status == ShipmentDelivered:
		return ResultShipmentDelivered, false
	}
	return ResultOK, true
}

// MaxErrandCodeIDs caps the parcel IDs of one errand code request.
const MaxErrandCodeIDs = 100

// CodeService hands out and looks up sending and errand codes. Every call
// acts for one caller (a gateway client) and sees only the codes and
// shipments of the caller's organization in the caller's environment;
// another tenant's tracking number, parcel or code answers exactly like a
// missing one. Every method asks Caller.May itself first (interface §5.1:
// the gateway's actions), so a caller without the right is EFORBIDDEN
// and nothing is read or written for it.
type CodeService interface {
	// CreateSendingCode returns the active sending code of the tracking
	// number, creating one if there is none (interface §4.1: idempotent). Unless
	// noEdiCheck, c's shipment data for the tracking number must exist
	// (ENOTFOUND); a delivered shipment gets no code (ECONFLICT). Only a
	// caller that may ActionCreateCodes.
	CreateSendingCode(ctx context.Context, c *Caller, trackingNumber string, noEdiCheck bool) (*SendingCode, error)
	// FindSendingCode returns the active sending code of c's tracking
	// number, or ENOTFOUND. Only a caller that may ActionReadCodes.
	FindSendingCode(ctx context.Context, c *Caller, trackingNumber string) (*SendingCode, error)
	// FindSendingCodeByCode returns c's active sending code with the given
	// code, with the shipment data held for it, or ENOTFOUND. Only a
	// caller that may ActionReadCodes.
	FindSendingCodeByCode(ctx context.Context, c *Caller, code string) (*SendingCode, error)
	// ErrandCodes returns one result per parcel ID, in order: each parcel of
	// c's shipment data gets its stable code, created on first request
	// (interface §4.2 rule 1); the others a ResultText saying why not. Duplicate
	// IDs get the same answer twice. Only a caller that may
	// ActionReadErrandCodes.
	ErrandCodes(ctx context.Context, c *Caller, parcelIDs []string) ([]ErrandCodeResult, error)
	// ActiveCodes counts the codes of c's environment that are active
	// now, every organization's: the metric of how full the code space
	// is (decisions §5). Only the operator acts (ActionOperate): c is the
	// EnvironmentOperator of one environment.
	ActiveCodes(ctx context.Context, c *Caller) (int64, error)
	// ShipmentCodeHistory returns every code c's shipment with the
	// tracking number held, active or not, newest first: its sending
	// codes and its parcels' errand codes (at most MaxCodeHistory). An
	// unknown tracking number has none. Only a caller that may
	// ActionReadCodes.
	ShipmentCodeHistory(ctx context.Context, c *Caller, trackingNumber string) ([]HeldCode, error)
}
