package capacity

// Identify finds the catalog model of a Hugging Face id (owner/name): by
// its id or an alias, else by the variant rules (lookupVariant), which
// inferred reports. A path, or an id matched only by its last component,
// is not identified: another organisation's model of the same name may
// be something else.
func (c *Catalog) Identify(id string) (m *Model, inferred, ok bool) {
	if m, how := c.lookupModel(id); how == matchID || how == matchAlias {
		return m, false, true
	}
	if m, ok := c.lookupVariant(id); ok {
		return m, true, true
	}
	return nil, false, false
}
