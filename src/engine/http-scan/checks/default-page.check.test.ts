import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findDefaultPage } from './default-page.check.ts';

// The identifying lines of each welcome page, in the markup the packages ship (shortened).
const NGINX =
  '<!DOCTYPE html>\n<html>\n<head>\n<title>Welcome to nginx!</title>\n</head>\n<body>\n<h1>Welcome to nginx!</h1>\n<p>If you see this page, the nginx web server is successfully installed and\nworking. Further configuration is required.</p>\n</body>\n</html>\n';
const APACHE_DEBIAN =
  '<html><head><title>Apache2 Debian Default Page: It works</title></head><body><div class="page_header"><span class="floating_element">Apache2 Debian Default Page</span></div><div class="section_header">It works!</div><p>This is the default welcome page used to test the correct operation of the Apache2 server after installation on Debian systems.</p></body></html>';
const APACHE_UPSTREAM = '<html><body><h1>It works!</h1></body></html>\n';
const APACHE_REDHAT =
  '<html><head><title>Test Page for the Apache HTTP Server on Red Hat Enterprise Linux</title></head><body><h1>Red Hat Enterprise Linux <strong>Test Page</strong></h1><p class="lead">This page is used to test the proper operation of the Apache HTTP server after it has been installed.</p></body></html>';
const IIS =
  '<!DOCTYPE html><html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1" /><title>IIS Windows Server</title></head><body><div id="container"><a href="http://go.microsoft.com/fwlink/?linkid=66138&amp;clcid=0x409"><img src="iisstart.png" alt="IIS" width="960" height="600" /></a></div></body></html>';
const TOMCAT =
  "<html><head><title>Apache Tomcat/9.0.80</title></head><body><h2>If you're seeing this, you've successfully installed Tomcat. Congratulations!</h2></body></html>";

describe('default page detector', () => {
  it('recognises the welcome pages of nginx, Apache (Debian, Red Hat, upstream), IIS and Tomcat', () => {
    const cases: Array<[string, string, string]> = [
      [NGINX, 'nginx', '<title>Welcome to nginx!</title>'],
      [APACHE_DEBIAN, 'Apache (Debian/Ubuntu)', 'Apache2 Debian Default Page'],
      [APACHE_UPSTREAM, 'Apache', '<h1>It works!</h1>'],
      [APACHE_REDHAT, 'Apache (Red Hat/Fedora)', 'Test Page for the Apache HTTP Server'],
      [IIS, 'IIS', '<title>IIS Windows Server</title>'],
      [TOMCAT, 'Tomcat', "If you're seeing this, you've successfully installed Tomcat. Congratulations!"],
    ];
    for (const [body, server, value] of cases) {
      const found = findDefaultPage(body);
      assert.ok(found !== undefined, server);
      assert.equal(found.title, `Web server default page: ${server}`);
      assert.equal(found.value, value, server);
      assert.equal(
        body.slice(found.offset, found.offset + found.value.length),
        value,
        `${server}: the offset points at the evidence`,
      );
    }
  });

  it('does not take a page that quotes a heading, or a site that says it works, for a default page', () => {
    assert.equal(
      findDefaultPage(
        '<html><head><title>Blog</title></head><body><p>We replaced the "Welcome to nginx!" page with our shop.</p></body></html>',
      ),
      undefined,
    );
    assert.equal(
      findDefaultPage('<html><body><h1>Welcome to nginx!</h1><p>Our nginx tutorial, part 1.</p></body></html>'),
      undefined,
    );
    assert.equal(
      findDefaultPage(
        '<!doctype html><html><head><title>Status</title></head><body><h1>It works!</h1><p>Orders, account and cart are up.</p></body></html>',
      ),
      undefined,
    );
    assert.equal(
      findDefaultPage('<html><head><title>IIS Windows Server</title></head><body><p>Our intranet.</p></body></html>'),
      undefined,
    );
    assert.equal(findDefaultPage(''), undefined);
  });
});
