import { isAppError } from '../../../core/errors/app-error.ts';
import type { ErrorCode } from '../../../core/errors/error-catalogue.ts';
import { httpStatusOf } from '../../error-status.ts';
import type { RouteDef } from '../../route.ts';
import { compileRouteValidator, type RouteValidator } from '../../validation.ts';
import { html, type Html } from '../html.ts';

/**
 * How a console form meets the API's rules: the form's values become the JSON body of an API
 * route, checked by that route's own validator; an error of the validator or the core becomes the
 * refusal the form shows (the API's code, message and HTTP status), marking the fields its
 * parameters name.
 */

/** A refusal of a form: the API's code and message, the fields it names, and the status the API answers. */
export interface FormRefusal {
  code: number;
  message: string;
  parameters: string[];
  status: number;
}

const validators = new Map<RouteDef, RouteValidator>();

/**
 * Reads a form's body as the route of `operationId` does (its validator, compiled once), and
 * answers the body's check, which runs when called: a service that takes it looks its record up
 * first, so an unknown record answers before a bad value, as in the API.
 */
export function routeBodyCheck(
  routes: readonly RouteDef[],
  operationId: string,
  body: unknown,
  params: Record<string, string> = {},
): () => unknown {
  const route = routes.find((r) => r.operationId === operationId);
  if (route === undefined) throw new Error(`the route ${operationId} is missing`);
  let validator = validators.get(route);
  if (validator === undefined) {
    validator = compileRouteValidator(route);
    validators.set(route, validator);
  }
  const valid = validator.validate({ query: {}, params, rawBody: Buffer.from(JSON.stringify(body)) } as never);
  return () => valid.checkedBody();
}

/** True for a code whose status is not 404: a form shows it; the page's not-found answers the others. */
export function isNotNotFound(code: ErrorCode): boolean {
  return httpStatusOf[code] !== 404;
}

/**
 * The refusal a form shows for an error. What is no rule's error is thrown again, and so is a code
 * `shows` refuses (by default a not-found, which the page answers with its not-found page).
 */
export function refusalOf(err: unknown, shows: (code: ErrorCode) => boolean = isNotNotFound): FormRefusal {
  if (!isAppError(err) || !shows(err.code)) throw err;
  return {
    code: err.code,
    message: err.message,
    parameters: err.parameters ?? [],
    status: httpStatusOf[err.code] ?? 400,
  };
}

/** True when a refusal names the field or a part of it (`login.fields[0].name` names `login.fields`). */
export function namesField(refusal: { parameters: readonly string[] } | undefined, field: string): boolean {
  return (refusal?.parameters ?? []).some((p) => p === field || p.startsWith(`${field}.`) || p.startsWith(`${field}[`));
}

/** ` aria-invalid="true"` on a field a refusal names, else nothing. */
export function invalidMark(refusal: { parameters: readonly string[] } | undefined, field: string): Html {
  return namesField(refusal, field) ? html` aria-invalid="true"` : html``;
}
