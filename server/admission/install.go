package admission

import (
	"context"
	"fmt"

	"github.com/bramble-edge/bramble/server/registry"
)

// InstallPolicy adds the policy plugins to reg in upstream's order
// (priority and runtime class before limit ranges, quotas last, so a
// quota counts what the others set) and creates the system priority
// classes.
func InstallPolicy(ctx context.Context, reg *registry.Registry) error {
	reg.Use(NewPriority(reg), NewRuntimeClass(reg), NewLimitRange(reg), NewQuota(reg))
	if err := EnsureSystemPriorityClasses(ctx, reg.Client()); err != nil {
		return fmt.Errorf("policy admission: %w", err)
	}
	return nil
}
