// Package client is the Go SDK of the parcel-logistics interface that
// parcelgate implements: label-less sending codes and shipment data on the
// versioned gateway, errand codes, warehouse sales orders, and products,
// catalogs and stock. The same Client talks to a parcelgate server (one
// address for everything) or to the provider itself (an address per
// surface); see Config.
//
// The package is its own module, github.com/parcelgate/parcelgate/client,
// depending only on golang.org/x/oauth2:
//
//	go get github.com/parcelgate/parcelgate/client
//
// The examples show the main flows: shipment data, sending code and errand
// code; publishing stock and polling its changes; an order followed to
// Delivered. The interface itself is described in the repository's
// docs/interface.md, and the server's own choices in docs/decisions.md.
//
// # Tokens
//
// The gateway APIs (sending codes, shipment data, errand codes) take tokens
// of a gateway client, fetched through golang.org/x/oauth2/clientcredentials;
// the ecom API (orders, products, stock, catalogs) tokens of a service
// account, fetched with HTTP Basic from the ecom token service (see
// EcomTokenConfig). A Client caches each token and fetches a new one shortly
// before it expires; when the server refuses a token anyway (401), the Client
// drops it, fetches a new one and makes the call once more.
//
// # Errors
//
// Every answer other than 2xx is an *Error, whichever of the interface's
// error bodies it carries. Failures to reach the server are the net/http
// errors.
//
// # Retries and timeouts
//
// Calls that are safe to repeat are retried after 429, 502, 503 and 504
// answers and connection failures, with exponential backoff and jitter,
// honouring Retry-After (see RetryPolicy). Every call takes a context; each
// attempt is also bounded by Config.Timeout.
//
// # Lists
//
// Every paged list has a method for one page, returning a *Page, and an
// iterator (iter.Seq2) over all its items that follows the pages. Lists
// polled by modification time also have a Sync, which keeps the cursor of
// an incremental poll for the caller.
package client
