"""Django's `{% url %}`, with each address reversed once and then remembered.

A page's header, tabs and links reverse the same dozen or two names on every request, and
`reverse` resolves the name and checks the pattern each time: about a millisecond of a board
page's CPU. Loaded as a template builtin (settings.TEMPLATES), this tag takes the place of
Django's everywhere; an address is remembered per name, arguments, current app, script prefix
and URLconf, for arguments that are plain strings and numbers (anything else is reversed as
Django does, every time).
"""

from __future__ import annotations

import functools

from django import template
from django.template.defaulttags import URLNode
from django.template.defaulttags import url as django_url
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse
from django.utils.html import conditional_escape

register = template.Library()

_PLAIN = (str, int)


@functools.lru_cache(maxsize=4096)
def _reverse(view_name, args, kwargs, current_app, prefix, urlconf) -> str:
    return reverse(
        view_name, args=args, kwargs=dict(kwargs), current_app=current_app, urlconf=urlconf
    )


class RememberedURLNode(URLNode):
    def render(self, context):
        args = tuple(arg.resolve(context) for arg in self.args)
        kwargs = tuple(sorted((k, v.resolve(context)) for k, v in self.kwargs.items()))
        view_name = self.view_name.resolve(context)
        try:
            current_app = context.request.current_app
        except AttributeError:
            try:
                current_app = context.request.resolver_match.namespace
            except AttributeError:
                current_app = None
        plain = all(type(value) in _PLAIN for value in (*args, *(v for _, v in kwargs)))
        url = ""
        try:
            if plain and isinstance(view_name, str):
                url = _reverse(
                    view_name, args, kwargs, current_app, get_script_prefix(), get_urlconf()
                )
            else:
                url = reverse(view_name, args=args, kwargs=dict(kwargs), current_app=current_app)
        except NoReverseMatch:
            if self.asvar is None:
                raise
        if self.asvar:
            context[self.asvar] = url
            return ""
        return conditional_escape(url) if context.autoescape else url


@register.tag
def url(parser, token):
    node = django_url(parser, token)
    return RememberedURLNode(node.view_name, node.args, node.kwargs, node.asvar)
