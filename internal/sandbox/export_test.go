package sandbox

// Abandon drops the sandbox's locks without its cleanup, as when its
// process is killed.
func (p *Prepared) Abandon() {
	for _, h := range p.holds {
		_ = h.lock.Close()
	}
	p.holds = nil
}
