package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"

	"github.com/parcelgate/parcelgate/client"
	"github.com/parcelgate/parcelgate/internal/sandbox"
)

// sandboxURL starts an in-process parcelgate server seeded with the demo
// tenant, as "parcelgate serve --demo" does, and returns its address and a
// function that stops it.
func sandboxURL() (string, func()) {
	sb, err := sandbox.Start()
	if err != nil {
		log.Fatal(err)
	}
	return sb.URL, sb.Close
}

// A Client for the provider itself, whose surfaces have addresses of their
// own; Environment picks the test addresses.
func ExampleNew() {
	c, err := client.New(client.Config{
		GatewayURL:  "https://gateway.provider.example",
		ErrandURL:   "https://connect.provider.example",
		EcomURL:     "https://ecom.provider.example",
		EcomTestURL: "https://ecom-test.provider.example",
		Environment: client.Test, // errand codes under /parcel-uat, ecom at EcomTestURL

		ClientID:     "my-client-id",
		ClientSecret: "my-client-secret",
		Username:     "my-service-account",
		Password:     "my-password",
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = c
}

func ExampleClient_EcomToken() {
	baseURL, stop := sandboxURL()
	defer stop()

	c, err := client.New(client.Config{BaseURL: baseURL, Username: "demo", Password: "demo-password"})
	if err != nil {
		log.Fatal(err)
	}
	tok, err := c.EcomToken(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tok.TokenType, tok.Scope)
	// Output: bearer internal
}

func ExampleError() {
	baseURL, stop := sandboxURL()
	defer stop()

	c, _ := client.New(client.Config{BaseURL: baseURL, Username: "demo", Password: "not-the-password"})
	_, err := c.EcomToken(context.Background())
	var e *client.Error
	if errors.As(err, &e) && e.StatusCode == http.StatusUnauthorized {
		fmt.Println(e.Code+":", e.Message)
	}
	// Output: Unauthorized: Bad credentials
}
