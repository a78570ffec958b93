package parcelgate

import "strings"

// MaxMoveReason caps the reason an operator gives for moving an order
// (decisions §9): it is kept with the order's history.
const MaxMoveReason = 500

// ParseOrderMove reads an operator's move of an order, the warehouse's
// hand under --fulfillment manual (decisions §9): value names the status
// to move to, any status but Created (orders become Created only by being
// sent), Viewed being Submitted's old name; reason is trimmed and at most
// MaxMoveReason bytes. Problems name the fields "value" and "reason".
// Whether the order may make the move from where it is is CanMove's,
// asked by the store. The operator API and the console both read moves
// with it.
func ParseOrderMove(value, reason string) (to OrderStatus, why string, err error) {
	var p Problems
	to, ok := ParseOrderStatus(value)
	switch {
	case value == "":
		p.Add("value", "is required")
	case !ok:
		p.Add("value", "%q is not an order status", value)
	case to == OrderCreated:
		p.Add("value", "must be Submitted, Delivered, Cancelled or Error: orders become Created only by being sent")
	case to == OrderPartiallyDelivered:
		p.Add("value", "must be Submitted, Delivered, Cancelled or Error: Partially delivered follows from the order's rows")
	}
	why = strings.TrimSpace(reason)
	if len(why) > MaxMoveReason {
		p.Add("reason", "must be at most %d characters", MaxMoveReason)
	}
	return to, why, p.Err()
}
