package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/containerd/containerd"
	"github.com/containerd/containerd/errdefs"
	"github.com/containerd/containerd/images"
	"github.com/containerd/platforms"
	"github.com/distribution/reference"

	"github.com/bramble-edge/bramble/imageregistry"
	"github.com/bramble-edge/bramble/metrics"
)

// labelLastUsed on an image records when a container was last created from it.
const labelLastUsed = labelPrefix + "last-used"

// EnsureImage implements Runtime.
func (c *Containerd) EnsureImage(ctx context.Context, ref string, policy PullPolicy, creds imageregistry.Credentials) (Image, error) {
	name, err := imageregistry.NormalizeRef(ref)
	if err != nil {
		return Image{}, err
	}
	switch policy {
	case "", PullIfNotPresent, PullNever:
		img, err := c.readyImage(ctx, name)
		if err == nil {
			return c.describe(ctx, img)
		}
		if !errors.Is(err, ErrNotFound) || policy == PullNever {
			return Image{}, err
		}
	case PullAlways:
	default:
		return Image{}, fmt.Errorf("image %s: pull policy %q: want Always, IfNotPresent or Never", name, policy)
	}
	img, err := c.pull(ctx, name, creds)
	if err != nil {
		return Image{}, err
	}
	return c.describe(ctx, img)
}

// ImagePresent says whether ref is stored on the node (the pod worker's
// Pulling events, and its hint for an airgapped node told to pull).
func (c *Containerd) ImagePresent(ctx context.Context, ref string) (bool, error) {
	name, err := imageregistry.NormalizeRef(ref)
	if err != nil {
		return false, err
	}
	_, err = c.client.GetImage(ctx, name)
	switch {
	case errdefs.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("get image %s: %w", name, err)
	}
	return true, nil
}

// readyImage returns the stored image, unpacked for the snapshotter.
func (c *Containerd) readyImage(ctx context.Context, name string) (containerd.Image, error) {
	img, err := c.client.GetImage(ctx, name)
	if errdefs.IsNotFound(err) {
		return nil, fmt.Errorf("image %s is not present: %w", name, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get image %s: %w", name, err)
	}
	unpacked, err := img.IsUnpacked(ctx, c.cfg.Snapshotter)
	if err != nil {
		return nil, fmt.Errorf("image %s: check unpacked: %w", name, err)
	}
	if !unpacked {
		if err := img.Unpack(ctx, c.cfg.Snapshotter); err != nil {
			return nil, fmt.Errorf("unpack image %s for %s: %w", name, platforms.DefaultString(), err)
		}
	}
	return img, nil
}

// pull fetches name for this node's platform and unpacks it.
func (c *Containerd) pull(ctx context.Context, name string, creds imageregistry.Credentials) (containerd.Image, error) {
	ctx = imageregistry.WithClientLog(ctx, c.log)
	resolver, release := imageregistry.NewResolver(c.cfg.Registries, creds)
	defer release()
	start := time.Now()
	img, err := c.client.Pull(ctx, name,
		containerd.WithResolver(resolver),
		containerd.WithPullUnpack,
		containerd.WithPullSnapshotter(c.cfg.Snapshotter),
		containerd.WithMaxConcurrentDownloads(3),
	)
	if err != nil {
		metrics.AgentImagePulls.WithLabelValues("error").Inc()
		return nil, fmt.Errorf("pull image %s: %w", name, err)
	}
	metrics.AgentImagePulls.WithLabelValues("ok").Inc()
	c.log.Info("pulled image", "image", name, "digest", img.Target().Digest.String(), "took", time.Since(start))
	return img, nil
}

// ImportImages implements Runtime. An OCI archive's images are named by
// their io.containerd.image.name annotation or a full reference in
// org.opencontainers.image.ref.name; a docker-save archive's by RepoTags.
func (c *Containerd) ImportImages(ctx context.Context, r io.Reader) ([]Image, error) {
	ctx = imageregistry.WithClientLog(ctx, c.log)
	imgs, err := c.client.Import(ctx, r,
		containerd.WithImportPlatform(platforms.Default()),
		containerd.WithImageRefTranslator(ociRefName),
	)
	if err != nil {
		return nil, fmt.Errorf("import images: %w", err)
	}
	if len(imgs) == 0 {
		return nil, fmt.Errorf("import images: the archive names no image")
	}
	out := make([]Image, 0, len(imgs))
	for _, m := range imgs {
		img := containerd.NewImage(c.client, m)
		if err := img.Unpack(ctx, c.cfg.Snapshotter); err != nil {
			return nil, fmt.Errorf("unpack imported image %s for %s: %w", m.Name, platforms.DefaultString(), err)
		}
		d, err := c.describe(ctx, img)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// ociRefName keeps an OCI ref.name annotation only when it is a full
// reference; a bare tag ("1.36") names nothing we could look up.
func ociRefName(s string) string {
	named, err := reference.ParseNormalizedNamed(s)
	if err != nil {
		return ""
	}
	return reference.TagNameOnly(named).String()
}

// ListImages implements Runtime.
func (c *Containerd) ListImages(ctx context.Context) ([]Image, error) {
	imgs, err := c.client.ListImages(ctx)
	if err != nil {
		return nil, fmt.Errorf("list images: %w", err)
	}
	out := make([]Image, 0, len(imgs))
	for _, img := range imgs {
		d, err := c.describe(ctx, img)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// describe reports an image. Content missing for this platform (a
// multi-platform index pulled for one platform) counts as size 0.
func (c *Containerd) describe(ctx context.Context, img containerd.Image) (Image, error) {
	m := img.Metadata()
	d := Image{Name: m.Name, Digest: m.Target.Digest.String(), CreatedAt: m.CreatedAt}
	size, err := img.Size(ctx)
	if err != nil && !errdefs.IsNotFound(err) {
		return Image{}, fmt.Errorf("image %s: size: %w", m.Name, err)
	}
	d.Size = size
	ps, err := images.Platforms(ctx, c.client.ContentStore(), m.Target)
	if err != nil && !errdefs.IsNotFound(err) {
		return Image{}, fmt.Errorf("image %s: platforms: %w", m.Name, err)
	}
	for _, p := range ps {
		d.Platforms = append(d.Platforms, platforms.Format(p))
	}
	if t, err := time.Parse(time.RFC3339Nano, m.Labels[labelLastUsed]); err == nil {
		d.LastUsed = t
	}
	return d, nil
}

// markUsed records on the image that a container was just created from it.
func (c *Containerd) markUsed(ctx context.Context, name string, at time.Time) error {
	img := images.Image{Name: name, Labels: map[string]string{labelLastUsed: at.UTC().Format(time.RFC3339Nano)}}
	if _, err := c.client.ImageService().Update(ctx, img, "labels."+labelLastUsed); err != nil {
		return fmt.Errorf("mark image %s used: %w", name, err)
	}
	return nil
}
