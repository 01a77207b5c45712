package scheduler

// imageLocality prefers nodes that already have the pod's images, so the
// pod starts without a pull (slow on an SD card and a thin uplink). It
// follows kube-scheduler's ImageLocality: each image present on the node
// adds its size scaled by the share of nodes that have it (an image every
// node has does not pull pods anywhere in particular; one that only a few
// have is not worth piling onto them); the sum is mapped linearly from
// [23 MiB, 1000 MiB x containers] to [0, 100]. An image whose size the node
// does not report counts as unknownImageSize.
type imageLocality struct{}

const (
	mib               int64 = 1 << 20
	imageMinThreshold       = 23 * mib
	imageMaxPerImage        = 1000 * mib
	unknownImageSize        = 100 * mib
)

func (imageLocality) score(c *cycle, n *nodeInfo) int64 {
	if len(n.images) == 0 || len(c.pod.images) == 0 {
		return 0
	}
	total := float64(len(c.snap.list))
	var sum int64
	for _, img := range c.pod.images {
		size, ok := n.images[img]
		if !ok {
			continue
		}
		if size <= 0 {
			size = unknownImageSize
		}
		sum += int64(float64(size) * float64(c.snap.imageNodes[img]) / total)
	}
	return imageScore(sum, len(c.pod.pod.Spec.InitContainers)+len(c.pod.pod.Spec.Containers))
}

// imageScore maps the scaled sum of present image sizes to 0..100.
func imageScore(sum int64, containers int) int64 {
	hi := imageMaxPerImage * int64(max(containers, 1))
	sum = min(max(sum, imageMinThreshold), hi)
	return maxScore * (sum - imageMinThreshold) / (hi - imageMinThreshold)
}
