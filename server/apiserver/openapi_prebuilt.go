package apiserver

import "embed"

// The OpenAPI v3 documents of the built-in group versions are built with
// the code, not by each server: TestPrebuiltOpenAPIIsCurrent writes them
// (with -update-openapi) and fails when one is stale. Each is embedded
// gzip'd under its hash (docHash), so a server serves a document whose
// kinds are the built-in ones as it is, and builds only those whose kinds
// changed at run time (a custom resource's group version) or that are not
// here. Building apps/v1 took ~15 ms of CPU on the first kubectl apply
// after each start (a Raspberry Pi's took several times that).
//
//go:embed openapi-v3/*.json.gz
var prebuiltV3 embed.FS

const prebuiltV3Dir = "openapi-v3"

// prebuiltOpenAPI is the document hash names, gzip'd; nil when it was not
// built with the code.
func prebuiltOpenAPI(hash string) []byte {
	gz, err := prebuiltV3.ReadFile(prebuiltV3Dir + "/" + hash + ".json.gz")
	if err != nil {
		return nil
	}
	return gz
}
