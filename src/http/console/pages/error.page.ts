import { html, type Html } from '../html.ts';
import { page, type PageFrame } from '../layout.ts';

/** A page that says what went wrong and where to go from here. */
export function errorPage(frame: PageFrame, message: string): Html {
  return page(
    frame,
    html`<section class="panel narrow">
  <h1>${frame.title}</h1>
  <p>${message}</p>
  <p><a href="/">Back to the console</a></p>
</section>`,
  );
}

/** The one not-found page: for a path that does not exist and for another team's record alike. */
export function notFoundPage(frame: Omit<PageFrame, 'title'>): Html {
  return errorPage(
    { ...frame, title: 'Not found' },
    'There is nothing here. It may have been deleted, or the link is wrong.',
  );
}
