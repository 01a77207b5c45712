package controllers

import (
	"container/heap"
	"time"
)

type waitItem struct {
	key string
	at  time.Time
}

type waitHeap []waitItem

func (h waitHeap) Len() int           { return len(h) }
func (h waitHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h waitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *waitHeap) Push(x any)        { *h = append(*h, x.(waitItem)) }
func (h *waitHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// armLocked sets the timer for the earliest delayed key.
func (q *Queue) armLocked() {
	if len(q.waiting) == 0 || q.shutdown {
		return
	}
	d := q.waiting[0].at.Sub(q.now())
	if q.timer == nil {
		q.timer = time.AfterFunc(d, q.release)
		return
	}
	q.timer.Reset(d)
}

// release queues every delayed key whose time has come.
func (q *Queue) release() {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.now()
	for len(q.waiting) > 0 && !q.waiting[0].at.After(now) {
		it := heap.Pop(&q.waiting).(waitItem)
		if at, ok := q.waitingAt[it.key]; ok && at.Equal(it.at) {
			delete(q.waitingAt, it.key)
			q.addLocked(it.key)
		}
	}
	q.armLocked()
}
