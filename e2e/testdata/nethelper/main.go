// Command nethelper is the pod networking tests' small static HTTP server
// and client (busybox-static's wget crashes in a bare rootfs):
//
//	nethelper serve ADDR   answers every request with "<hostname> <client address>"
//	nethelper get URL      prints the body of one GET; exits 1 when it fails
//	nethelper wait URL     like get, retried for up to a minute
//	nethelper lookup NAME@SERVER  prints NAME's addresses as SERVER (ip:port) answers
//	nethelper lookup NAME         the same with the resolvers of /etc/resolv.conf
//	nethelper cname NAME[@SERVER] prints NAME's canonical name (its CNAME target)
//	nethelper tlsget URL CAFILE SERVERNAME  GET over HTTPS, the server's
//	                       certificate verified against CAFILE for SERVERNAME;
//	                       prints the status line and body, exits 1 unless 200
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

func main() {
	if len(os.Args) == 5 && os.Args[1] == "tlsget" {
		if err := tlsGet(os.Args[2], os.Args[3], os.Args[4]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: nethelper serve ADDR | get URL | wait URL | lookup NAME[@SERVER] | cname NAME[@SERVER] | tlsget URL CAFILE SERVERNAME")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "serve":
		serve(os.Args[2])
	case "get":
		if err := get(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	case "lookup", "cname":
		if err := lookup(os.Args[1], os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	case "wait":
		for start := time.Now(); ; time.Sleep(200 * time.Millisecond) {
			err := get(os.Args[2])
			if err == nil {
				return
			}
			if time.Since(start) > time.Minute {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
	default:
		os.Exit(2)
	}
}

func serve(addr string) {
	host, _ := os.Hostname()
	err := http.ListenAndServe(addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s\n", host, r.RemoteAddr)
	}))
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func get(url string) error {
	c := http.Client{Timeout: 3 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	fmt.Print(string(body))
	return nil
}

// lookup resolves NAME with SERVER only (no search list, no hosts file),
// or without @SERVER as /etc/resolv.conf says (search list, ndots). Mode
// "cname" prints the canonical name instead of the addresses.
func lookup(mode, arg string) error {
	name, server, ok := strings.Cut(arg, "@")
	r := &net.Resolver{PreferGo: true}
	if ok {
		r.Dial = func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, server)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if mode == "cname" {
		cname, err := r.LookupCNAME(ctx, name)
		if err == nil {
			fmt.Println(cname)
		}
		return err
	}
	addrs, err := r.LookupHost(ctx, name)
	if err != nil {
		return err
	}
	fmt.Println(strings.Join(addrs, " "))
	return nil
}

// tlsGet GETs url over TLS trusting only the CA in caFile, the server's
// certificate checked for serverName (not the URL's host).
func tlsGet(url, caFile, serverName string) error {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return fmt.Errorf("%s: no certificate", caFile)
	}
	c := http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: serverName}}}
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	fmt.Printf("%s\n%s", resp.Status, body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return nil
}
