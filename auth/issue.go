package auth

import (
	"context"

	"github.com/parcelgate/parcelgate"
)

// CredentialStore is what CreateGatewayClient and CreateServiceAccount
// store a new credential through: the two calls of
// parcelgate.CredentialService they make (its doc comments state the
// rules).
type CredentialStore interface {
	CreateGatewayClient(ctx context.Context, c *parcelgate.Caller, gc *parcelgate.GatewayClient, secretHash string) error
	CreateServiceAccount(ctx context.Context, c *parcelgate.Caller, a *parcelgate.ServiceAccount, passwordHash string) error
}

// CreateGatewayClient is the one way a gateway client is made, for the
// operator API and the console alike: r is checked by the root's
// GatewayClientRequest.Validate against the served versions, the client
// gets a new ID and secret, and the store keeps only the secret's hash.
// The client is returned with its secret, which is shown once. c is the
// operator making it (the store asks c.May(ActionOperate)).
func CreateGatewayClient(ctx context.Context, st CredentialStore, c *parcelgate.Caller, r *parcelgate.GatewayClientRequest, served []string) (*parcelgate.GatewayClient, error) {
	gc, err := r.Validate(served)
	if err != nil {
		// The store decides who may act before what was sent is looked
		// at (decisions §57, §65): it answers its refusal, or err.
		return nil, st.CreateGatewayClient(ctx, c.Unread(err), nil, "")
	}
	secret := NewClientSecret()
	gc.ClientID = NewClientID()
	if err := st.CreateGatewayClient(ctx, c, gc, HashSecret(secret)); err != nil {
		return nil, err
	}
	gc.ClientSecret = secret
	return gc, nil
}

// CreateServiceAccount is the one way a service account is made, for the
// operator API and the console alike: r is checked by the root's
// ServiceAccountRequest.Validate, a password is generated unless r
// chose one, and the store keeps only its hash (ECONFLICT when the
// username is taken). The account is returned with its password, which is
// shown once. c is the operator making it (the store asks
// c.May(ActionOperate)).
func CreateServiceAccount(ctx context.Context, st CredentialStore, c *parcelgate.Caller, r *parcelgate.ServiceAccountRequest) (*parcelgate.ServiceAccount, error) {
	a, err := r.Validate()
	if err != nil {
		return nil, st.CreateServiceAccount(ctx, c.Unread(err), nil, "")
	}
	password := r.Password
	if password == "" {
		password = NewPassword()
	}
	hash, err := HashPassword(password)
	if err != nil {
		return nil, err
	}
	if err := st.CreateServiceAccount(ctx, c, a, hash); err != nil {
		return nil, err
	}
	a.Password = password
	return a, nil
}
