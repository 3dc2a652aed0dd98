package command

import "strings"

// kubectl names one resource type many ways: `kubectl delete pods x`,
// `po x`, `Pod x`, `pods.v1 x`, `pod/x` and `svc,pod x` all delete the pod
// x. A deny or ask rule written with one spelling (Bash(kubectl delete
// pod:*)) must meet the others, so a kubectl command is also tried with
// each resource word spelled one way: the type's singular name, lower
// case, without its group (kubectlType), a TYPE/NAME word split in two and
// a list of types taken one at a time. matcher spells a rule's words the
// same way (SpelledOut), so Bash(kubectl delete pods:*) meets `pod` too.

// kubectlTypes maps the built-in resource types' plural names and short
// names to their singular names (kubectl api-resources, Kubernetes 1.31).
var kubectlTypes = Table[map[string]string]{Make: func() map[string]string {
	m := map[string]string{}
	for _, t := range [][]string{
		// singular, plural, short names
		{"pod", "pods", "po"}, {"service", "services", "svc"}, {"deployment", "deployments", "deploy"},
		{"replicaset", "replicasets", "rs"}, {"statefulset", "statefulsets", "sts"}, {"daemonset", "daemonsets", "ds"},
		{"configmap", "configmaps", "cm"}, {"secret", "secrets"}, {"namespace", "namespaces", "ns"},
		{"node", "nodes", "no"}, {"persistentvolumeclaim", "persistentvolumeclaims", "pvc"},
		{"persistentvolume", "persistentvolumes", "pv"}, {"serviceaccount", "serviceaccounts", "sa"},
		{"ingress", "ingresses", "ing"}, {"ingressclass", "ingressclasses"}, {"job", "jobs"},
		{"cronjob", "cronjobs", "cj"}, {"endpoints", "endpoints", "ep"}, {"endpointslice", "endpointslices"},
		{"event", "events", "ev"}, {"horizontalpodautoscaler", "horizontalpodautoscalers", "hpa"},
		{"networkpolicy", "networkpolicies", "netpol"}, {"poddisruptionbudget", "poddisruptionbudgets", "pdb"},
		{"podsecuritypolicy", "podsecuritypolicies", "psp"}, {"replicationcontroller", "replicationcontrollers", "rc"},
		{"resourcequota", "resourcequotas", "quota"}, {"limitrange", "limitranges", "limits"},
		{"storageclass", "storageclasses", "sc"}, {"customresourcedefinition", "customresourcedefinitions", "crd", "crds"},
		{"clusterrole", "clusterroles"}, {"clusterrolebinding", "clusterrolebindings"}, {"role", "roles"},
		{"rolebinding", "rolebindings"}, {"priorityclass", "priorityclasses", "pc"},
		{"certificatesigningrequest", "certificatesigningrequests", "csr"}, {"componentstatus", "componentstatuses", "cs"},
		{"lease", "leases"}, {"runtimeclass", "runtimeclasses"}, {"csidriver", "csidrivers"}, {"csinode", "csinodes"},
		{"csistoragecapacity", "csistoragecapacities"}, {"volumeattachment", "volumeattachments"},
		{"validatingwebhookconfiguration", "validatingwebhookconfigurations"},
		{"mutatingwebhookconfiguration", "mutatingwebhookconfigurations"}, {"apiservice", "apiservices"},
		{"controllerrevision", "controllerrevisions"}, {"podtemplate", "podtemplates"}, {"binding", "bindings"},
		{"flowschema", "flowschemas"}, {"prioritylevelconfiguration", "prioritylevelconfigurations"},
		{"validatingadmissionpolicy", "validatingadmissionpolicies"},
		{"validatingadmissionpolicybinding", "validatingadmissionpolicybindings"},
	} {
		for _, n := range t {
			m[n] = t[0]
		}
	}
	return m
}}

// kubectlType is the one spelling of a resource type word: lower case,
// without its version and group (deployments.v1.apps), and singular, by
// the table for the built-in types and by English for others (a custom
// resource's plural is its singular with an s, es or ies: widgets,
// policies). "" when the word cannot be a type.
func kubectlType(w string) string {
	if w == "" || strings.HasPrefix(w, "-") || strings.ContainsAny(w, "/,=:") {
		return ""
	}
	w = strings.ToLower(w)
	if i := strings.IndexByte(w, '.'); i > 0 {
		w = w[:i]
	}
	if t, ok := kubectlTypes.Get()[w]; ok {
		return t
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "uses"), strings.HasSuffix(w, "xes"),
		strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && len(w) > 2:
		return w[:len(w)-1]
	}
	return w
}

// maxKubectlAlts bounds the further readings of one kubectl command.
const maxKubectlAlts = 8

// kubectlAlts returns args once for each word past the program that a
// resource type may stand in, with it spelled one way (kubectlType):
// TYPE/NAME as two words, each type of a list in a word of its own. An
// option's value cannot be told from the type (kubectl -n pods delete
// ...), so every word is tried; a reading that changes nothing is left out.
func kubectlAlts(args []string) [][]string {
	var out [][]string
	for i := 1; i < len(args) && len(out) < maxKubectlAlts; i++ {
		w := args[i]
		if strings.HasPrefix(w, "-") {
			continue
		}
		typ, name, slash := strings.Cut(w, "/")
		for _, t := range strings.Split(typ, ",") {
			t = kubectlType(t)
			if t == "" || len(out) >= maxKubectlAlts || t == w {
				continue
			}
			alt := make([]string, 0, len(args)+1)
			alt = append(alt, args[:i]...)
			alt = append(alt, t)
			if slash && name != "" {
				alt = append(alt, name)
			}
			out = append(out, append(alt, args[i+1:]...))
		}
	}
	return out
}
