package controllers

import "github.com/bramble-edge/bramble/api"

// The reflector's side of an Informer: it applies changes, then tells the
// handlers.

func (i *Informer) upsert(obj api.Object) {
	key := KeyOf(obj)
	i.mu.Lock()
	old, had := i.objs[key]
	if had {
		i.unindex(key, old)
	}
	i.objs[key] = obj
	i.index(key, obj)
	handlers := i.handlers
	i.mu.Unlock()
	for _, h := range handlers {
		switch {
		case had && h.OnUpdate != nil:
			h.OnUpdate(old, obj)
		case !had && h.OnAdd != nil:
			h.OnAdd(obj)
		}
	}
}

func (i *Informer) remove(key string) {
	i.mu.Lock()
	old, had := i.objs[key]
	if had {
		i.unindex(key, old)
		delete(i.objs, key)
	}
	handlers := i.handlers
	i.mu.Unlock()
	if !had {
		return
	}
	for _, h := range handlers {
		if h.OnDelete != nil {
			h.OnDelete(old)
		}
	}
}

func (i *Informer) markSynced() {
	select {
	case <-i.synced:
	default:
		close(i.synced)
	}
}

func (i *Informer) index(key string, obj api.Object) {
	for name, fn := range i.indexers {
		idx := i.indexes[name]
		for _, v := range fn(obj) {
			set := idx[v]
			if set == nil {
				set = map[string]struct{}{}
				idx[v] = set
			}
			set[key] = struct{}{}
		}
	}
}

func (i *Informer) unindex(key string, obj api.Object) {
	for name, fn := range i.indexers {
		idx := i.indexes[name]
		for _, v := range fn(obj) {
			if set := idx[v]; set != nil {
				delete(set, key)
				if len(set) == 0 {
					delete(idx, v)
				}
			}
		}
	}
}
