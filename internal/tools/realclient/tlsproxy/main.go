// Command tlsproxy lets a client that calls the provider's hosts by their
// fixed https:// addresses run unchanged against a local parcelgate: it is
// an HTTP proxy (give it to the client as https_proxy) that answers every
// CONNECT itself, with a certificate for the host asked for signed by a
// throw-away CA (written to -ca for the client to trust, e.g. by
// SSL_CERT_FILE), and forwards the requests inside to -target. A test
// tool: never run it where real traffic passes.
package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"fmt"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sync"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "the proxy's address")
	target := flag.String("target", "", "the parcelgate base URL requests are forwarded to")
	caFile := flag.String("ca", "", "where to write the CA certificate (PEM)")
	flag.Parse()
	to, err := url.Parse(*target)
	if err != nil || to.Host == "" || *caFile == "" {
		log.Fatal("tlsproxy: give -target http://host:port and -ca file")
	}
	ca, caKey := newCA()
	if err := os.WriteFile(*caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw}), 0o644); err != nil {
		log.Fatal(err)
	}
	forward := httputil.NewSingleHostReverseProxy(to)
	var mu sync.Mutex
	certs := map[string]*tls.Certificate{}
	tlsConf := &tls.Config{GetCertificate: func(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
		mu.Lock()
		defer mu.Unlock()
		if c, ok := certs[h.ServerName]; ok {
			return c, nil
		}
		c := leaf(h.ServerName, ca, caKey)
		certs[h.ServerName] = c
		return c, nil
	}}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ln.Addr().String())
	log.Fatal(http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			forward.ServeHTTP(w, r)
			return
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		conn.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
		tc := tls.Server(conn, tlsConf)
		go func() {
			defer tc.Close()
			br := bufio.NewReader(tc)
			for {
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				log.Printf("%s https://%s%s -> %s", req.Method, r.Host, req.URL.Path, to)
				req.URL.Scheme, req.URL.Host, req.RequestURI = to.Scheme, to.Host, ""
				resp, err := http.DefaultTransport.RoundTrip(req)
				if err != nil {
					return
				}
				err = resp.Write(tc)
				resp.Body.Close()
				if err != nil || req.Close || resp.Close {
					return
				}
			}
		}()
	})))
}

func newCA() (*x509.Certificate, *ecdsa.PrivateKey) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "parcelgate tlsproxy test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		log.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	return c, key
}

func leaf(host string, ca *x509.Certificate, caKey *ecdsa.PrivateKey) *tls.Certificate {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		log.Fatal(err)
	}
	return &tls.Certificate{Certificate: [][]byte{der, ca.Raw}, PrivateKey: key}
}
