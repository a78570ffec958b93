package httpapi

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkRedactBody measures the journal writer's redaction of a 16 KiB
// page whose links carry an access_token (the worst case: every token is
// re-encoded). It runs off the request path, in the journal's writer.
//
//	go test ./httpapi -run '^$' -bench RedactBody -benchmem
func BenchmarkRedactBody(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"links":[{"rel":"next","href":"http://h/ecommerce/v3/orders?access_token=S3CR3T&size=50&page=1"}],"content":[`)
	for i := 0; sb.Len() < JournalBodyCap-200; i++ {
		fmt.Fprintf(&sb, `{"externalId":"1234567-1-%d","status":{"value":"Created"},"rows":[{"externalProductId":"P1","quantity":1.0}],"note":"line\nbreak"},`, i)
	}
	sb.WriteString(`{}],"page":{"size":50}}`)
	body := []byte(sb.String())
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		redactBody(body, "application/json")
	}
}

// BenchmarkRedactOrdinaryBody measures the common case: a 16 KiB page that
// holds no secret name, kept as it is after the pre-check.
func BenchmarkRedactOrdinaryBody(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"links":[{"rel":"next","href":"http://h/ecommerce/v3/orders?updatedFrom=2025-01-01T00%3A00%3A00Z&size=50&page=1"}],"content":[`)
	for i := 0; sb.Len() < JournalBodyCap-200; i++ {
		fmt.Fprintf(&sb, `{"externalId":"1234567-1-%d","status":{"value":"Created"},"rows":[{"externalProductId":"P1","quantity":1.0}],"note":"line\nbreak"},`, i)
	}
	sb.WriteString(`{}],"page":{"size":50}}`)
	body := []byte(sb.String())
	if mayHoldSecret(body) {
		b.Fatal("the ordinary page is parsed")
	}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		redactBody(body, "application/json")
	}
}
