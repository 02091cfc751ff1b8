package resources

// The documents `botkit apply -o json|yaml` and `botkit diff -o json|yaml`
// print: the API's ApplyResult (its kind, dryRun, applySet, and per object
// kind, name, region, action, resourceVersion, keys and fields), with what
// the command knows besides per object: its organization (one command may
// span several), its version, the apply set that owns it and, for a diff,
// the labels' old and new values (labels are not secret). Never a value.
// manifests/schema/applyreport.schema.json is generated from these types.

// LabelChange is what apply would do (or did) to one label: its value
// before (From) and after (To), absent when there is none.
type LabelChange struct {
	Label  string `json:"label"`
	Change string `json:"change"`
	From   string `json:"from,omitempty"`
	To     string `json:"to,omitempty"`
}

// ApplyReportItem is one object of an ApplyReport.
type ApplyReportItem struct {
	Kind         string `json:"kind"`
	Name         string `json:"name"`
	Organization string `json:"organization,omitempty"`
	Region       string `json:"region,omitempty"`
	// Action: created, configured, unchanged or pruned (validated for
	// apply --dry-run=client, which asks the platform nothing).
	Action          string `json:"action"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Version is the version of the object's contents
	// (metadata.generation) after the apply; 0 (absent) in a dry run.
	Version int64 `json:"version,omitempty"`
	// ApplySet is the apply set that owns the object now (a diff shows an
	// object that another apply set owns as apply would make it with that
	// apply set; apply itself needs --applyset with it).
	ApplySet string        `json:"applySet,omitempty"`
	Keys     []KeyChange   `json:"keys"`
	Fields   []FieldChange `json:"fields"`
	// Labels is the change of each label whose value changes (diff only).
	Labels []LabelChange `json:"labels,omitempty"`
	// Object is the object after the apply, key names only (apply only).
	Object *Object `json:"object,omitempty"`
	// Deployment is, for an Agent whose spec the apply changed, the
	// deployment that rolls it out (apply only; with --wait, as it ended).
	Deployment *Deployment `json:"deployment,omitempty"`
	// Message says why an Agent whose spec the apply changed was not
	// rolled out.
	Message string `json:"message,omitempty"`
}

// ApplyReport is what apply -o json|yaml (DryRun false, unless
// --dry-run) and diff -o json|yaml (DryRun true) print: one item per
// object of the manifests, in their order, then one per object pruned.
type ApplyReport struct {
	TypeMeta `json:",inline"`
	DryRun   bool              `json:"dryRun"`
	ApplySet string            `json:"applySet,omitempty"`
	Items    []ApplyReportItem `json:"items"`
}
