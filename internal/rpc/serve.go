package rpc

import (
	"context"
	"io"

	"github.com/neovim/go-client/nvim"
)

// Serve answers requests on r/w until the editor closes the channel.
func (h *Host) Serve(ctx context.Context, r io.Reader, w io.Writer, c io.Closer) error {
	logf := h.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	v, err := nvim.New(r, w, c, logf)
	if err != nil {
		return err
	}
	for _, name := range Methods() {
		name := name
		if err := v.RegisterHandler(name, func(args ...any) (any, error) {
			return h.Handle(ctx, name, args)
		}); err != nil {
			return err
		}
	}
	go func() {
		<-ctx.Done()
		v.Close()
	}()
	return v.Serve()
}
