// Package fakeapi is a stand-in for the Anthropic Messages API used by the
// end-to-end tests that run the real claude CLI without network. It answers
// POST /v1/messages with scripted turns (text and tool_use blocks) streamed as
// server-sent events, and records every request body so a test can assert
// what reached the model (for example that a denied file's content never
// did).
//
// Overload makes the next main-loop requests fail with HTTP 529
// (overloaded_error), so the CLI's retries can be tested; SetDeltaSize
// streams text in text_delta events of a given size, as a model writes it.
//
// Requests that carry no tools are the CLI's side requests (titles, topic
// checks, quota probes); they get a short text answer and do not consume a
// scripted turn. count_tokens and any other path get a harmless answer.
package fakeapi
