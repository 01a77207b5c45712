package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/bench/minicluster"
)

// BenchmarkCronJobsIdle measures the CPU of the in-process server (its
// controllers, CronJob controller included, and datastore) holding 1,000
// CronJobs that are not due (daily at a time the run avoids): the time to
// create them and have each synced once, then the CPU over a minute of
// idling, as a share of one core. -short: 100 CronJobs, 10 s.
//
//	go test -run '^$' -bench 'BenchmarkCronJobsIdle$' -benchtime 1x -timeout 10m ./bench/
func BenchmarkCronJobsIdle(b *testing.B) {
	n, idle := 1000, time.Minute
	if testing.Short() {
		n, idle = 100, 10*time.Second
	}
	for range b.N {
		c, err := minicluster.Start(context.Background(), minicluster.Config{Dir: b.TempDir(), Controllers: true})
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		start := time.Now()
		createCronJobs(b, c, n, quietHour(time.Now().UTC()))
		created := time.Since(start)
		time.Sleep(5 * time.Second) // the first syncs (status, requeue for the next day) settle
		load := loadAverage(b)
		cpu, t0 := processCPU(b), time.Now()
		time.Sleep(idle)
		used, wall := processCPU(b)-cpu, time.Since(t0)
		b.StopTimer()
		b.ReportMetric(created.Seconds(), "s-to-create")
		b.ReportMetric(100*used.Seconds()/wall.Seconds(), "cpu-%core-idle")
		b.ReportMetric(load, "load1")
		c.Stop()
	}
}

// quietHour is an hour of the day at least two hours away from now.
func quietHour(now time.Time) int { return (now.Hour() + 12) % 24 }

func createCronJobs(b *testing.B, c *minicluster.Cluster, n, hour int) {
	b.Helper()
	for i := range n {
		cj := &batchv1.CronJob{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("sweep-%04d", i), Namespace: "default"},
			Spec: batchv1.CronJobSpec{Schedule: fmt.Sprintf("%d %d * * *", i%60, hour),
				JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "registry.lan/sweep:v1"}}}}}}},
		}
		if _, err := c.Client.Create(context.Background(), cj); err != nil {
			b.Fatalf("create cronjob %d: %v", i, err)
		}
	}
}
