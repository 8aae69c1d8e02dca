import { randomUUID } from 'node:crypto';

/**
 * The XML bodies of the local AWS server, shaped as AWS's API references show them: Route 53's
 * REST-XML (`<XxxResponse xmlns=…>` and `<ErrorResponse>`), the awsQuery services STS and ELBv2
 * (`<XxxResult>` inside `<XxxResponse>`, `<ResponseMetadata>`), and EC2's own query dialect
 * (lower-camel elements, `<item>` lists, errors as `<Response><Errors>`).
 */

/** The services the server answers, by their SigV4 signing name. */
export type AwsService = 'route53' | 'sts' | 'ec2' | 'elasticloadbalancing';

/** One XML answer. */
export interface XmlAnswer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

const namespaces: Record<AwsService, string> = {
  route53: 'https://route53.amazonaws.com/doc/2013-04-01/',
  sts: 'https://sts.amazonaws.com/doc/2011-06-15/',
  ec2: 'http://ec2.amazonaws.com/doc/2016-11-15/',
  elasticloadbalancing: 'http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/',
};

const prolog = '<?xml version="1.0" encoding="UTF-8"?>\n';

/** Escapes text for an XML element. */
export function x(text: string | number | boolean): string {
  return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** `<name>text</name>`, or nothing when the value is undefined. */
export function el(name: string, value: string | number | boolean | undefined): string {
  return value === undefined ? '' : `<${name}>${x(value)}</${name}>`;
}

/** A successful answer of `action` with the given inner XML. */
export function success(service: AwsService, action: string, inner: string): XmlAnswer {
  const requestId = randomUUID();
  if (service === 'ec2')
    return {
      status: 200,
      body: `${prolog}<${action}Response xmlns="${namespaces.ec2}"><requestId>${requestId}</requestId>${inner}</${action}Response>`,
    };
  if (service === 'route53')
    return {
      status: 200,
      body: `${prolog}<${action}Response xmlns="${namespaces.route53}">${inner}</${action}Response>`,
      headers: { 'x-amzn-requestid': requestId },
    };
  return {
    status: 200,
    body:
      `<${action}Response xmlns="${namespaces[service]}"><${action}Result>${inner}</${action}Result>` +
      `<ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></${action}Response>`,
    headers: { 'x-amzn-requestid': requestId },
  };
}

/** An error answer in the service's documented shape. */
export function failure(service: AwsService, status: number, code: string, message: string): XmlAnswer {
  const requestId = randomUUID();
  if (service === 'ec2')
    return {
      status,
      body: `${prolog}<Response><Errors><Error>${el('Code', code)}${el('Message', message)}</Error></Errors><RequestID>${requestId}</RequestID></Response>`,
    };
  const type = status >= 500 ? 'Receiver' : 'Sender';
  return {
    status,
    body:
      `${service === 'route53' ? prolog : ''}<ErrorResponse xmlns="${namespaces[service]}">` +
      `<Error><Type>${type}</Type>${el('Code', code)}${el('Message', message)}</Error>` +
      `<RequestId>${requestId}</RequestId></ErrorResponse>`,
    headers: { 'x-amzn-requestid': requestId },
  };
}

/** The documented answer for an unknown access key id. */
export function invalidKey(service: AwsService): XmlAnswer {
  return service === 'ec2'
    ? failure('ec2', 401, 'AuthFailure', 'AWS was not able to validate the provided access credentials')
    : failure(service, 403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
}

/** The documented answer for a signature computed with the wrong secret. */
export function badSignature(service: AwsService): XmlAnswer {
  return service === 'ec2'
    ? failure('ec2', 401, 'AuthFailure', 'AWS was not able to validate the provided access credentials')
    : failure(
        service,
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
      );
}

/** The documented answer for an authenticated caller without the permission. */
export function denied(service: AwsService, action: string, callerArn: string): XmlAnswer {
  if (service === 'ec2')
    return failure('ec2', 403, 'UnauthorizedOperation', 'You are not authorized to perform this operation.');
  const prefix = service === 'elasticloadbalancing' ? 'elasticloadbalancing' : service;
  return failure(service, 403, 'AccessDenied', `User: ${callerArn} is not authorized to perform: ${prefix}:${action}`);
}

/** The documented throttling answer of each service. */
export function throttled(service: AwsService): XmlAnswer {
  if (service === 'ec2') return failure('ec2', 503, 'RequestLimitExceeded', 'Request limit exceeded.');
  return failure(service, 400, 'Throttling', 'Rate exceeded');
}
