// Package openapi embeds the OpenAPI description of every route parcelgate
// serves. The server publishes it at /openapi.yaml, and the HTTP tests check
// real responses against it.
package openapi

import _ "embed"

// Spec is openapi.yaml.
//
//go:embed openapi.yaml
var Spec []byte
