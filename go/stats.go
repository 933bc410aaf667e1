package provisioner

import (
	"context"
	"encoding/json"
	"time"
)

// The running instances as $SRV.STATS.mesh-provisioner reports them: each
// one's seat and the revision each of its projections applied. A watch uses
// them as the TypeScript client does: who holds the seat (only the holder
// publishes the feed), and the furthest revision any instance applied (a
// snapshot asked at it holds every write some instance has seen, whichever
// instance of the queue group answers).

// Holder is the seat's value: who holds it, and since when.
type Holder struct {
	Instance string `json:"instance"`
	Host     string `json:"host"`
	PID      int    `json:"pid"`
	Since    string `json:"since"`
}

// Instance is one running instance of the service.
type Instance struct {
	ID       string
	Instance string
	IsHolder bool
	// Holder is who this instance sees holding the seat (nil: nobody).
	Holder *Holder
	// Revisions is the revision each projection (by what) has applied.
	Revisions map[What]uint64
}

type statsReply struct {
	ID        string `json:"id"`
	Endpoints []struct {
		Data struct {
			Seat struct {
				Instance string  `json:"instance"`
				IsHolder bool    `json:"isHolder"`
				Holder   *Holder `json:"holder"`
			} `json:"seat"`
			Projections map[What]struct {
				Revision uint64 `json:"revision"`
			} `json:"projections"`
		} `json:"data"`
	} `json:"endpoints"`
}

// Instances asks $SRV.STATS.mesh-provisioner and gathers every answer that
// comes within wait (there is no telling how many instances run, so it
// always waits that long). A reply it cannot read is skipped.
func (c *Client) Instances(ctx context.Context, wait time.Duration) ([]Instance, error) {
	inbox := c.inbox()
	sub, err := c.nc.SubscribeSync(inbox)
	if err != nil {
		return nil, err
	}
	defer sub.Unsubscribe()
	if err := c.nc.PublishRequest("$SRV.STATS."+ServiceName, inbox, nil); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var out []Instance
	for {
		m, err := sub.NextMsgWithContext(ctx)
		if err != nil {
			if isContextErr(err) {
				return out, nil
			}
			return out, err
		}
		var r statsReply
		if json.Unmarshal(m.Data, &r) != nil || len(r.Endpoints) == 0 {
			continue
		}
		d := r.Endpoints[0].Data
		inst := Instance{ID: r.ID, Instance: d.Seat.Instance, IsHolder: d.Seat.IsHolder, Holder: d.Seat.Holder, Revisions: map[What]uint64{}}
		for w, p := range d.Projections {
			inst.Revisions[w] = p.Revision
		}
		out = append(out, inst)
	}
}

// holdOf names the hold the feed comes from: the holder's instance and the
// since of its take ("" when no instance that replied says it holds the
// seat). Only the holder publishes the feed, every change while one hold
// lasts; an instance that loses the seat and takes it again does so with a
// new since. So a watch whose hold changed (another instance, or the same one
// anew) may have missed events.
func holdOf(list []Instance) string {
	for _, i := range list {
		if i.IsHolder && i.Holder != nil {
			return i.Holder.Instance + " since " + i.Holder.Since
		}
	}
	return ""
}

// furthestApplied is the highest revision of what any instance reports (0 when none answers).
func (c *Client) furthestApplied(ctx context.Context, what What) uint64 {
	list, _ := c.Instances(ctx, 300*time.Millisecond)
	var furthest uint64
	for _, i := range list {
		furthest = max(furthest, i.Revisions[what])
	}
	return furthest
}
