// Markdown written by someone else (a ruleset's README, the GM's handouts), made safe to show:
// markdown-it with HTML off (any HTML shows as text), only http(s), mailto and # links kept
// (javascript:, data: and the like are refused), links opened in a new tab without the opener,
// and Markdown pictures shown as their words (nothing is fetched from elsewhere when someone
// reads it: a handout's own picture comes from the engine, by key).

import MarkdownIt from "markdown-it";

export const markdown = new MarkdownIt({ html: false, linkify: false, typographer: true });
markdown.disable(["image"]);
const validate = markdown.validateLink.bind(markdown);
markdown.validateLink = (url: string) => validate(url) && /^(https?:|mailto:|#)/i.test(url.trim());
const renderLink = markdown.renderer.rules.link_open;
markdown.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx].attrSet("target", "_blank");
  tokens[idx].attrSet("rel", "noopener noreferrer");
  return renderLink ? renderLink(tokens, idx, options, env, self) : self.renderToken(tokens, idx, options);
};
