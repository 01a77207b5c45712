package pods

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// grpcProbe asks the standard gRPC health service (grpc.health.v1.Health
// Check) at host:port, in plaintext as the kubelet does; only SERVING
// passes. service is the probe's service name ("" asks for the server).
// The client is the grpc module containerd's client already links.
func grpcProbe(ctx context.Context, host string, port int32, service string) (bool, string) {
	addr := net.JoinHostPort(host, strconv.Itoa(int(port)))
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithUserAgent("kube-probe/1.32"))
	if err != nil {
		return false, fmt.Sprintf("failed to connect service %q: %v", addr, err)
	}
	defer conn.Close()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		return false, fmt.Sprintf("failed to check service %q health: %v", addr, err)
	}
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		return false, fmt.Sprintf("service unhealthy (responded with %q)", resp.GetStatus().String())
	}
	return true, ""
}
