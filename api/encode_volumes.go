package api

import (
	corev1 "k8s.io/api/core/v1"
)

// volume writes a pod's volume: the projected service account volume
// every pod gets by hand, the other sources through json.Marshal.
func (e *encoder) volume(v *corev1.Volume) {
	e.str("name", v.Name)
	e.volumeSource(&v.VolumeSource)
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
	objectPtr(e, "projected", s.Projected, (*encoder).projected)
	fallbackPtr(e, "portworxVolume", s.PortworxVolume)
	fallbackPtr(e, "scaleIO", s.ScaleIO)
	fallbackPtr(e, "storageos", s.StorageOS)
	fallbackPtr(e, "csi", s.CSI)
	fallbackPtr(e, "ephemeral", s.Ephemeral)
	fallbackPtr(e, "image", s.Image)
}

func (e *encoder) projected(p *corev1.ProjectedVolumeSource) {
	e.field("sources") // not omitempty
	objects(e, p.Sources, (*encoder).volumeProjection)
	e.int32Ptr("defaultMode", p.DefaultMode)
}

func (e *encoder) volumeProjection(p *corev1.VolumeProjection) {
	fallbackPtr(e, "secret", p.Secret)
	objectPtr(e, "downwardAPI", p.DownwardAPI, (*encoder).downwardAPIProjection)
	objectPtr(e, "configMap", p.ConfigMap, (*encoder).configMapProjection)
	objectPtr(e, "serviceAccountToken", p.ServiceAccountToken, (*encoder).serviceAccountTokenProjection)
	fallbackPtr(e, "clusterTrustBundle", p.ClusterTrustBundle)
}

func (e *encoder) downwardAPIProjection(d *corev1.DownwardAPIProjection) {
	objectList(e, "items", d.Items, (*encoder).downwardAPIFile)
}

func (e *encoder) configMapProjection(c *corev1.ConfigMapProjection) {
	e.strOmit("name", c.Name)
	objectList(e, "items", c.Items, (*encoder).keyToPath)
	e.boolPtr("optional", c.Optional)
}

func (e *encoder) serviceAccountTokenProjection(t *corev1.ServiceAccountTokenProjection) {
	e.strOmit("audience", t.Audience)
	e.int64Ptr("expirationSeconds", t.ExpirationSeconds)
	e.str("path", t.Path)
}

func (e *encoder) keyToPath(k *corev1.KeyToPath) {
	e.str("key", k.Key)
	e.str("path", k.Path)
	e.int32Ptr("mode", k.Mode)
}

func (e *encoder) downwardAPIFile(f *corev1.DownwardAPIVolumeFile) {
	e.str("path", f.Path)
	objectPtr(e, "fieldRef", f.FieldRef, (*encoder).objectFieldSelector)
	fallbackPtr(e, "resourceFieldRef", f.ResourceFieldRef)
	e.int32Ptr("mode", f.Mode)
}

func (e *encoder) objectFieldSelector(s *corev1.ObjectFieldSelector) {
	e.strOmit("apiVersion", s.APIVersion)
	e.str("fieldPath", s.FieldPath)
}
