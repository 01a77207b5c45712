// Package runtime runs the agent's containers through containerd: images
// (import, pull, list, garbage collection) and containers (run, stop, remove,
// status, exec, adoption after an agent restart). The pod worker drives it
// through the Runtime interface; Containerd is the implementation.
package runtime

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/bramble-edge/bramble/imageregistry"
)

// Runtime is what the pod worker needs from a container runtime. Containers
// outlive the process using it: closing a Runtime never stops a container,
// and ListContainers finds them again after a restart.
type Runtime interface {
	// EnsureImage makes ref present on the node according to policy, pulling
	// it with creds (from imagePullSecrets, may be nil) when needed.
	EnsureImage(ctx context.Context, ref string, policy PullPolicy, creds imageregistry.Credentials) (Image, error)
	// ImportImages loads an image tarball (OCI layout or docker save).
	ImportImages(ctx context.Context, r io.Reader) ([]Image, error)
	// ListImages reports the images present, for image-locality scoring.
	ListImages(ctx context.Context) ([]Image, error)
	// GarbageCollectImages removes unused images, least recently used
	// first, until the policy's free-space goal is met; it returns the
	// names removed.
	GarbageCollectImages(ctx context.Context, policy ImageGCPolicy) ([]string, error)

	// RunContainer creates and starts a container. On error nothing is
	// left behind.
	RunContainer(ctx context.Context, spec ContainerSpec) error
	// StopContainer sends SIGTERM, waits up to grace, then SIGKILLs. A
	// container that is not running is not an error.
	StopContainer(ctx context.Context, id string, grace time.Duration) error
	// RemoveContainer kills what still runs and deletes the container and
	// its writable layer. The log file stays.
	RemoveContainer(ctx context.Context, id string) error
	// ContainerStatus reports one container; ErrNotFound when it is gone.
	ContainerStatus(ctx context.Context, id string) (ContainerStatus, error)
	// ListContainers reports every container this package created in its
	// namespace, running or not.
	ListContainers(ctx context.Context) ([]ContainerStatus, error)
	// Exec runs cmd in a running container and captures its output; the
	// command is killed when ctx ends.
	Exec(ctx context.Context, id string, cmd []string) (ExecResult, error)
}

// ErrNotFound says a container or image does not exist (errors.Is).
var ErrNotFound = errors.New("not found")

// PullPolicy takes the Kubernetes imagePullPolicy values.
type PullPolicy string

// Pull policies; the empty policy means PullIfNotPresent.
const (
	PullIfNotPresent PullPolicy = "IfNotPresent"
	PullAlways       PullPolicy = "Always"
	PullNever        PullPolicy = "Never"
)

// Image is an image present on the node.
type Image struct {
	// Name is the normalized reference, e.g. docker.io/library/busybox:1.36.
	Name string
	// Digest is the digest of the image's target (a manifest or an index).
	Digest string
	// Size is the bytes of content held for this node's platform.
	Size int64
	// Platforms lists the platforms the image provides, e.g. linux/arm64.
	Platforms []string
	CreatedAt time.Time
	// LastUsed is when a container was last created from it (zero: never).
	LastUsed time.Time
}

// ImageGCPolicy says when to stop removing images.
type ImageGCPolicy struct {
	// Path is a directory on the filesystem holding containerd's content
	// and snapshots (default /var/lib/containerd).
	Path string
	// MinFreePercent: stop once at least this share of Path's filesystem
	// is free (0-100).
	MinFreePercent float64
	// Keep lists image references never removed (pods still want them).
	Keep []string
}

// ExecResult is what an exec'd command printed and how it ended. Each
// stream keeps at most MaxExecOutput bytes.
type ExecResult struct {
	ExitCode int
	Stdout   []byte
	Stderr   []byte
}

// MaxExecOutput bounds each captured exec stream.
const MaxExecOutput = 64 << 10
