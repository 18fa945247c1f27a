// Package pagetest acts as the user in front of a confirmation page of
// confirmpage, for tests: Press fetches the page as a browser would and
// posts its form with the headers a browser sends; Chromium presses a
// button in a real headless Chromium, whose headers are its own.
package pagetest

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

var (
	actionRE = regexp.MustCompile(`<form method="post" action="([^"]+)">`)
	nonceRE  = regexp.MustCompile(`name="nonce" value="([^"]+)"`)
)

// client bounds each request: only a hang takes this long.
var client = &http.Client{Timeout: 2 * time.Minute}

// Fetch returns the page at pageURL.
func Fetch(pageURL string) (string, error) {
	res, err := client.Get(pageURL)
	if err != nil {
		return "", fmt.Errorf("fetch the page: %w", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return "", fmt.Errorf("read the page: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("fetch the page: %s: %s", res.Status, body)
	}
	return string(body), nil
}

// Press fetches the page at pageURL and submits its form as the browser
// does, with the button whose value is decision: "allow_once" or "reject";
// "" sends no button's value at all. It returns the page's answer.
func Press(pageURL, decision string) (string, error) {
	page, err := Fetch(pageURL)
	if err != nil {
		return "", err
	}
	action, nonce := actionRE.FindStringSubmatch(page), nonceRE.FindStringSubmatch(page)
	if action == nil || nonce == nil {
		return "", fmt.Errorf("the page has no form:\n%s", page)
	}
	u, err := url.Parse(pageURL)
	if err != nil {
		return "", err
	}
	values := url.Values{"nonce": {nonce[1]}}
	if decision != "" {
		values.Set("decision", decision)
	}
	req, err := http.NewRequest(http.MethodPost, u.Scheme+"://"+u.Host+action[1], strings.NewReader(values.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	// What a browser sends with a form posted from the page itself
	// (Chromium, whose real press TestInChromium tests, does the same).
	req.Header.Set("Origin", u.Scheme+"://"+u.Host)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("submit the form: %w", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return "", err
	}
	if res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("submit the form: %s: %s", res.Status, body)
	}
	return string(body), nil
}
