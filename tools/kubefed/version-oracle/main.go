// Command version-oracle answers, with KubeFed v0.10.0's own code, what KubeFed's sync
// controller records for version tracking (docs: KubeFed's
// pkg/controller/sync/resource.go and pkg/controller/util/propagatedversion.go):
//
//   - for a federated object, templateHash = sync.GetTemplateHash (the PropagatedVersion's
//     status.templateVersion) and overrideHash = sync.GetOverrideHash (status.overridesVersion);
//   - for a member object, version = util.ObjectVersion (an entry of status.clusterVersions).
//
// It reads one JSON array from stdin, each item {"federated": <object>} or {"member": <object>},
// and writes one JSON array to stdout with one result per item, in order:
// {"templateHash": "...", "overrideHash": "..."}, {"version": "..."} or {"error": "..."}.
// Objects are decoded the way KubeFed's informers decode them (unstructured JSON: whole numbers
// become int64, others float64), so the hashes are those KubeFed computes for the same object
// read from an API server.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"sigs.k8s.io/kubefed/pkg/controller/sync"
	"sigs.k8s.io/kubefed/pkg/controller/util"
)

type item struct {
	Federated json.RawMessage `json:"federated,omitempty"`
	Member    json.RawMessage `json:"member,omitempty"`
}

type result struct {
	TemplateHash *string `json:"templateHash,omitempty"`
	OverrideHash *string `json:"overrideHash,omitempty"`
	Version      *string `json:"version,omitempty"`
	Error        string  `json:"error,omitempty"`
}

func main() {
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail("reading stdin", err)
	}
	var items []item
	if err := json.Unmarshal(input, &items); err != nil {
		fail("stdin is not a JSON array of {federated|member: object}", err)
	}
	results := make([]result, 0, len(items))
	for _, it := range items {
		results = append(results, answer(it))
	}
	out := json.NewEncoder(os.Stdout)
	out.SetIndent("", "  ")
	if err := out.Encode(results); err != nil {
		fail("writing stdout", err)
	}
}

func answer(it item) result {
	switch {
	case len(it.Federated) > 0:
		obj, err := decode(it.Federated)
		if err != nil {
			return result{Error: err.Error()}
		}
		templateHash, err := sync.GetTemplateHash(obj.Object)
		if err != nil {
			return result{Error: err.Error()}
		}
		overrideHash, err := sync.GetOverrideHash(obj)
		if err != nil {
			return result{Error: err.Error()}
		}
		return result{TemplateHash: &templateHash, OverrideHash: &overrideHash}
	case len(it.Member) > 0:
		obj, err := decode(it.Member)
		if err != nil {
			return result{Error: err.Error()}
		}
		version := util.ObjectVersion(obj)
		return result{Version: &version}
	default:
		return result{Error: "item has neither \"federated\" nor \"member\""}
	}
}

func decode(raw json.RawMessage) (*unstructured.Unstructured, error) {
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	return obj, nil
}

func fail(what string, err error) {
	fmt.Fprintf(os.Stderr, "version-oracle: %s: %v\n", what, err)
	os.Exit(1)
}
