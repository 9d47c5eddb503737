package report

import (
	"fmt"
	"io"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
)

// SARIF 2.1.0 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/).

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string            `json:"id"`
	ShortDescription     sarifText         `json:"shortDescription"`
	FullDescription      sarifText         `json:"fullDescription"`
	Help                 sarifText         `json:"help"`
	DefaultConfiguration map[string]string `json:"defaultConfiguration"`
	Properties           map[string]string `json:"properties"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifLocation struct {
	LogicalLocations []sarifLogical `json:"logicalLocations"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

func sarifLevel(sev string) string {
	switch sev {
	case "error":
		return "error"
	case "warning":
		return "warning"
	}
	return "note"
}

// WriteSARIF writes rep as SARIF 2.1.0: every rule in the driver, one
// result per diagnostic, located at its frames.
func WriteSARIF(w io.Writer, rep *Report) error {
	rules := append(append(doctor.Rules(), BudgetRules()...), PreviewRules()...)
	driver := sarifDriver{Name: "mcpscope", Version: mcp.ClientVersion, InformationURI: "https://github.com/mcpscope/mcpscope"}
	index := map[string]int{}
	for i, r := range rules {
		index[r.ID] = i
		driver.Rules = append(driver.Rules, sarifRule{
			ID:                   r.ID,
			ShortDescription:     sarifText{r.Summary},
			FullDescription:      sarifText{r.Why},
			Help:                 sarifText{r.Fix},
			DefaultConfiguration: map[string]string{"level": sarifLevel(r.Severity.String())},
			Properties:           map[string]string{"specRef": r.SpecRef},
		})
	}
	results := []sarifResult{}
	for _, d := range rep.Diagnostics {
		res := sarifResult{RuleID: d.Rule, RuleIndex: index[d.Rule], Level: sarifLevel(d.Severity), Message: sarifText{d.Message}}
		for _, f := range d.Frames {
			name := fmt.Sprintf("frame #%d", f.Seq)
			res.Locations = append(res.Locations, sarifLocation{LogicalLocations: []sarifLogical{{
				Name: name, FullyQualifiedName: rep.Target + "/" + name + " " + f.Label, Kind: "object"}}})
		}
		if rep.Connected && len(res.Locations) == 0 {
			res.Locations = []sarifLocation{{LogicalLocations: []sarifLogical{{Name: rep.Target, FullyQualifiedName: rep.Target, Kind: "module"}}}}
		}
		results = append(results, res)
	}
	return writeJSON(w, sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results}},
	})
}
