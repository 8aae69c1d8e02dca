/**
 * The summary of an event the human formats share (one sentence, labelled facts, the page to
 * open), for faces beyond the formats (the console's event list). It lives in formats/ because
 * a subfolder may not import the folder above it; this is its address for the rest of the core.
 */
export {
  contextLine,
  fieldText,
  kindCount,
  severityRank,
  summarizeEvent,
  truncate,
  type EventSummary,
  type SummaryFact,
  type SummaryLink,
} from './formats/event-summary.ts';
