package api

import "slices"

// nameSetSmall is how many names a nameSet holds in a slice before it
// moves them to a map.
const nameSetSmall = 16

// nameSet is a set of names for duplicate checks in a pod (volumes,
// containers, ports, mount paths): a pod has a few of each, which a slice
// holds without the map sets.New allocates for every one of them. Past
// nameSetSmall names it is a map, so a pod with very many stays linear.
// The zero value is empty.
type nameSet struct {
	list []string
	m    map[string]struct{}
}

func (s *nameSet) has(name string) bool {
	if s.m != nil {
		_, ok := s.m[name]
		return ok
	}
	return slices.Contains(s.list, name)
}

func (s *nameSet) insert(name string) {
	if s.m != nil {
		s.m[name] = struct{}{}
		return
	}
	s.list = append(s.list, name)
	if len(s.list) > nameSetSmall {
		s.m = make(map[string]struct{}, 2*len(s.list))
		for _, n := range s.list {
			s.m[n] = struct{}{}
		}
		s.list = nil
	}
}
