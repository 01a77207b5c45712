package api

import (
	corev1 "k8s.io/api/core/v1"
)

// volumes writes a pod's volumes: the projected service account volume
// every pod gets by hand, the other sources through json.Marshal.
func (e *encoder) volumes(vs []corev1.Volume) {
	if len(vs) == 0 {
		return
	}
	e.field("volumes")
	e.b = append(e.b, '[')
	for i := range vs {
		e.elem()
		e.b = append(e.b, '{')
		e.str("name", vs[i].Name)
		e.volumeSource(&vs[i].VolumeSource)
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, ']')
}

// volumeSource writes the inlined source's fields, in their order.
func (e *encoder) volumeSource(s *corev1.VolumeSource) {
	fallbackPtr(e, "hostPath", s.HostPath)
	fallbackPtr(e, "emptyDir", s.EmptyDir)
	fallbackPtr(e, "gcePersistentDisk", s.GCEPersistentDisk)
	fallbackPtr(e, "awsElasticBlockStore", s.AWSElasticBlockStore)
	fallbackPtr(e, "gitRepo", s.GitRepo)
	fallbackPtr(e, "secret", s.Secret)
	fallbackPtr(e, "nfs", s.NFS)
	fallbackPtr(e, "iscsi", s.ISCSI)
	fallbackPtr(e, "glusterfs", s.Glusterfs)
	fallbackPtr(e, "persistentVolumeClaim", s.PersistentVolumeClaim)
	fallbackPtr(e, "rbd", s.RBD)
	fallbackPtr(e, "flexVolume", s.FlexVolume)
	fallbackPtr(e, "cinder", s.Cinder)
	fallbackPtr(e, "cephfs", s.CephFS)
	fallbackPtr(e, "flocker", s.Flocker)
	fallbackPtr(e, "downwardAPI", s.DownwardAPI)
	fallbackPtr(e, "fc", s.FC)
	fallbackPtr(e, "azureFile", s.AzureFile)
	fallbackPtr(e, "configMap", s.ConfigMap)
	fallbackPtr(e, "vsphereVolume", s.VsphereVolume)
	fallbackPtr(e, "quobyte", s.Quobyte)
	fallbackPtr(e, "azureDisk", s.AzureDisk)
	fallbackPtr(e, "photonPersistentDisk", s.PhotonPersistentDisk)
	if s.Projected != nil {
		e.projected(s.Projected)
	}
	fallbackPtr(e, "portworxVolume", s.PortworxVolume)
	fallbackPtr(e, "scaleIO", s.ScaleIO)
	fallbackPtr(e, "storageos", s.StorageOS)
	fallbackPtr(e, "csi", s.CSI)
	fallbackPtr(e, "ephemeral", s.Ephemeral)
	fallbackPtr(e, "image", s.Image)
}

func (e *encoder) projected(p *corev1.ProjectedVolumeSource) {
	e.field("projected")
	e.b = append(e.b, '{')
	e.field("sources")
	if p.Sources == nil {
		e.b = append(e.b, "null"...)
	} else {
		e.b = append(e.b, '[')
		for i := range p.Sources {
			e.elem()
			e.volumeProjection(&p.Sources[i])
		}
		e.b = append(e.b, ']')
	}
	e.int32Ptr("defaultMode", p.DefaultMode)
	e.b = append(e.b, '}')
}

func (e *encoder) volumeProjection(p *corev1.VolumeProjection) {
	e.b = append(e.b, '{')
	fallbackPtr(e, "secret", p.Secret)
	if d := p.DownwardAPI; d != nil {
		e.field("downwardAPI")
		e.b = append(e.b, '{')
		e.downwardAPIFiles(d.Items)
		e.b = append(e.b, '}')
	}
	if c := p.ConfigMap; c != nil {
		e.field("configMap")
		e.b = append(e.b, '{')
		e.strOmit("name", c.Name)
		e.keysToPaths(c.Items)
		e.boolPtr("optional", c.Optional)
		e.b = append(e.b, '}')
	}
	if t := p.ServiceAccountToken; t != nil {
		e.field("serviceAccountToken")
		e.b = append(e.b, '{')
		e.strOmit("audience", t.Audience)
		e.int64Ptr("expirationSeconds", t.ExpirationSeconds)
		e.str("path", t.Path)
		e.b = append(e.b, '}')
	}
	fallbackPtr(e, "clusterTrustBundle", p.ClusterTrustBundle)
	e.b = append(e.b, '}')
}

func (e *encoder) keysToPaths(items []corev1.KeyToPath) {
	if len(items) == 0 {
		return
	}
	e.field("items")
	e.b = append(e.b, '[')
	for i := range items {
		e.elem()
		e.b = append(e.b, '{')
		e.str("key", items[i].Key)
		e.str("path", items[i].Path)
		e.int32Ptr("mode", items[i].Mode)
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, ']')
}

func (e *encoder) downwardAPIFiles(items []corev1.DownwardAPIVolumeFile) {
	if len(items) == 0 {
		return
	}
	e.field("items")
	e.b = append(e.b, '[')
	for i := range items {
		f := &items[i]
		e.elem()
		e.b = append(e.b, '{')
		e.str("path", f.Path)
		if f.FieldRef != nil {
			e.field("fieldRef")
			e.objectFieldSelector(f.FieldRef)
		}
		fallbackPtr(e, "resourceFieldRef", f.ResourceFieldRef)
		e.int32Ptr("mode", f.Mode)
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, ']')
}

func (e *encoder) objectFieldSelector(s *corev1.ObjectFieldSelector) {
	e.b = append(e.b, '{')
	e.strOmit("apiVersion", s.APIVersion)
	e.str("fieldPath", s.FieldPath)
	e.b = append(e.b, '}')
}
