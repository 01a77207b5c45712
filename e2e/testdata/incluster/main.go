// Command incluster is the in-cluster client of the ServiceAccount
// end-to-end test: a real client-go program configured by
// rest.InClusterConfig (the token, ca.crt and KUBERNETES_SERVICE_HOST/PORT
// that bramble gives every pod). Every interval it lists the pods of its
// namespace, the pods of every namespace and the Secrets of its namespace,
// and prints one line per attempt with the HTTP status and the sha256
// prefix of the token file, so the test can tell when the token changed.
package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

const saDir = "/var/run/secrets/kubernetes.io/serviceaccount"

func main() {
	cfg, err := rest.InClusterConfig()
	if err != nil {
		fmt.Println("config-error", err)
		os.Exit(1)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Println("config-error", err)
		os.Exit(1)
	}
	raw, _ := os.ReadFile(saDir + "/namespace")
	ns := strings.TrimSpace(string(raw))
	for {
		once(cs, ns)
		time.Sleep(2 * time.Second)
	}
}

// once tries the three calls and prints their outcome.
func once(cs *kubernetes.Clientset, ns string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tok := tokenID()
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	n := 0
	if err == nil {
		n = len(pods.Items)
	}
	report("pods-ns", tok, n, err)
	_, err = cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	report("pods-all", tok, 0, err)
	_, err = cs.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
	report("secrets-ns", tok, 0, err)
}

// report prints "<unix time> <what> <status> token=<id> items=<n> <message>".
func report(what, tok string, n int, err error) {
	code := 200
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		code = int(se.Status().Code)
	} else if err != nil {
		code = -1
	}
	msg := ""
	if err != nil {
		msg = strings.ReplaceAll(err.Error(), "\n", " ")
	}
	fmt.Printf("%d %s %d token=%s items=%d %s\n", time.Now().Unix(), what, code, tok, n, msg)
}

// tokenID is the sha256 prefix of the token file as it is now.
func tokenID() string {
	raw, err := os.ReadFile(saDir + "/token")
	if err != nil {
		return "none"
	}
	sum := sha256.Sum256(raw)
	return fmt.Sprintf("%x", sum[:6])
}
