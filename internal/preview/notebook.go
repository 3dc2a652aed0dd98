package preview

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// notebookCell returns a NotebookEdit's cell before and after: the source of
// the cell it replaces or deletes ("" for an inserted cell) and new_source
// ("" for a deleted cell).
func notebookCell(nb string, exists bool, input map[string]any) (before, after string, err error) {
	if !exists {
		return "", "", errors.New("the notebook does not exist, so the edit will fail")
	}
	var doc struct {
		Cells []struct {
			ID     string          `json:"id"`
			Source json.RawMessage `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal([]byte(nb), &doc); err != nil {
		return "", "", fmt.Errorf("the notebook is not valid JSON (%v), so the edit will fail", err)
	}
	mode, _ := input["edit_mode"].(string)
	if mode == "" {
		mode = "replace"
	}
	if mode != "delete" {
		after, _ = input["new_source"].(string)
	}
	if mode == "insert" {
		return "", after, nil
	}
	i := -1
	if id, ok := input["cell_id"].(string); ok && id != "" {
		for k, c := range doc.Cells {
			if c.ID == id {
				i = k
			}
		}
		if i < 0 {
			return "", "", fmt.Errorf("the notebook has no cell %q, so the edit will fail", id)
		}
	} else if n, ok := input["cell_number"].(float64); ok {
		i = int(n)
	}
	if i < 0 || i >= len(doc.Cells) {
		return "", "", errors.New("the edit names no cell of the notebook, so it will fail")
	}
	return cellSource(doc.Cells[i].Source), after, nil
}

// cellSource reads a cell's source: a string or a list of lines.
func cellSource(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var lines []string
	_ = json.Unmarshal(raw, &lines)
	return strings.Join(lines, "")
}

func cellName(input map[string]any) string {
	if id, ok := input["cell_id"].(string); ok && id != "" {
		return id
	}
	if n, ok := input["cell_number"].(float64); ok {
		return fmt.Sprint(int(n))
	}
	return "new"
}
